// Copyright 2021 FerretDB Inc.
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.
// You may obtain a copy of the License at
//
//     http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS,
// WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
// See the License for the specific language governing permissions and
// limitations under the License.

package sjson

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/FerretDB/FerretDB/internal/types"
)

// unmarshalSlow is Unmarshal without its fast path.
func unmarshalSlow(data []byte) (*types.Document, error) {
	var v map[string]json.RawMessage
	r := bytes.NewReader(data)
	dec := json.NewDecoder(r)

	if err := dec.Decode(&v); err != nil {
		return nil, err
	}

	if err := checkConsumed(dec, r); err != nil {
		return nil, err
	}

	var sch schema
	r = bytes.NewReader(v["$s"])
	dec = json.NewDecoder(r)
	dec.DisallowUnknownFields()

	if err := dec.Decode(&sch); err != nil {
		return nil, err
	}

	delete(v, "$s")

	if len(sch.Keys) != len(v) {
		return nil, errMismatch
	}

	d := types.MakeDocument(0)

	for _, key := range sch.Keys {
		b, ok := v[key]
		if !ok {
			return nil, errMismatch
		}

		val, err := unmarshalSingleValue(b, sch.Properties[key])
		if err != nil {
			return nil, err
		}

		d.Set(key, val)
	}

	return d, nil
}

var errMismatch = json.Unmarshal([]byte("x"), new(int))

var samples = []string{"", "plain", "ünïcødé ✓", "quote\"inside", "back\\slash", "tab\there", "line\nbreak", "\x01ctl", "😀", string([]byte{0xff, 0xfe})}

func randomValue(r *rand.Rand, depth int) any {
	switch r.Intn(14) {
	case 0:
		if depth > 0 {
			return randomDocument(r, depth-1)
		}
		return new(types.Document)
	case 1:
		a := types.MakeArray(0)
		if depth > 0 {
			for n := r.Intn(4); n > 0; n-- {
				a.Append(randomValue(r, depth-1))
			}
		}
		return a
	case 2:
		return []float64{0, math.Copysign(0, -1), 1.5, -3e300, 5e-324, float64(r.Int63()), r.NormFloat64()}[r.Intn(7)]
	case 3, 4:
		return samples[r.Intn(len(samples))]
	case 5:
		return types.Binary{Subtype: types.BinaryGeneric, B: []byte{1, 2, byte(r.Intn(256))}}
	case 6:
		return types.ObjectID{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, byte(r.Intn(256))}
	case 7:
		return r.Intn(2) == 0
	case 8:
		return time.UnixMilli(r.Int63n(1 << 42)).UTC()
	case 9:
		return types.Null
	case 10:
		return types.Regex{Pattern: "^a.*" + samples[r.Intn(3)], Options: "i"}
	case 11:
		return int32(r.Int63n(1<<32) - 1<<31)
	case 12:
		return types.Timestamp(r.Uint64())
	default:
		return r.Int63() - 1<<62
	}
}

func randomDocument(r *rand.Rand, depth int) *types.Document {
	d := types.MakeDocument(0)
	for n := r.Intn(8); n > 0; n-- {
		d.Set([]string{"a", "b", "_id", "email", "x y", "ü", "n"}[r.Intn(7)]+string(rune('0'+r.Intn(10))), randomValue(r, depth))
	}
	return d
}

// TestUnmarshalFast checks that every document Marshal writes, and every damaged copy of one, decodes to the
// same value (or fails) with the fast path as without it.
func TestUnmarshalFast(t *testing.T) {
	t.Parallel()

	r := rand.New(rand.NewSource(1))
	fast := 0

	for i := 0; i < 20000; i++ {
		b, err := Marshal(randomDocument(r, 3))
		require.NoError(t, err)

		variants := [][]byte{b}
		for n := 0; n < 3; n++ {
			damaged := bytes.Clone(b)
			damaged[r.Intn(len(damaged))] = "{}[]\",:0a-. \\"[r.Intn(13)]
			variants = append(variants, damaged)
		}

		for _, v := range variants {
			expected, slowErr := unmarshalSlow(v)
			actual, err := Unmarshal(v)

			if slowErr != nil {
				require.Error(t, err, "%s", v)
				continue
			}

			require.NoError(t, err, "%s", v)
			require.Equal(t, expected, actual, "%s", v)

			if _, ok := unmarshalFast(v); ok {
				fast++
			}
		}
	}

	require.Greater(t, fast, 20000)
}

// TestStringFast checks JSON strings against encoding/json: escapes, surrogate pairs and halves of them.
func TestStringFast(t *testing.T) {
	t.Parallel()

	for _, raw := range []string{
		`""`, `"plain"`, `"\"\\\/\b\f\n\r\t"`, `"\u00e9\u00E9"`, `"\ud83d\ude00"`, `"\ud83d"`, `"\ud83dx"`, `"\ud83d\u0041"`,
		`"\ude00\ud83d"`, `"\u0000"`, `"\u12"`, `"\u12g4"`, `"\'"`, `"\x"`, `"a\"`, `"tab	raw"`, `"ü✓😀"`, `"a"b"`,
	} {
		var expected string
		slowErr := json.Unmarshal([]byte(raw), &expected)

		actual, ok := stringFast([]byte(raw))
		if slowErr != nil {
			require.False(t, ok, "%s", raw)
			continue
		}

		require.True(t, ok, "%s", raw)
		require.Equal(t, expected, actual, "%s", raw)
	}
}
