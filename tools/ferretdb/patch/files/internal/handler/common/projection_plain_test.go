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

package common

import (
	"math/rand"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/must"
)

var plainKeys = []string{"a", "b", "c", "email", "n", "_id"}

func plainValue(r *rand.Rand) any {
	switch r.Intn(9) {
	case 0:
		return must.NotFail(types.NewDocument("x", int32(1)))
	case 1:
		return must.NotFail(types.NewArray("x", int32(2)))
	case 2:
		return types.Binary{B: []byte{1}}
	case 3:
		return types.Null
	case 4:
		return int64(r.Intn(100))
	case 5:
		return r.Intn(2) == 0
	case 6:
		return time.UnixMilli(r.Int63n(1 << 40)).UTC()
	default:
		return []string{"", "ada@acme.test", "x"}[r.Intn(3)]
	}
}

// TestPlainInclusion checks that projecting top-level fields the short way gives what ProjectDocument gives, for
// random documents and projections, and that any other projection is left to ProjectDocument.
func TestPlainInclusion(t *testing.T) {
	t.Parallel()

	r := rand.New(rand.NewSource(1))
	short := 0

	for i := 0; i < 20000; i++ {
		doc := must.NotFail(types.NewDocument("_id", int32(i)))
		for _, key := range plainKeys[:5] {
			if r.Intn(3) > 0 {
				doc.Set(key, plainValue(r))
			}
		}

		raw := types.MakeDocument(0)
		for _, key := range plainKeys {
			switch r.Intn(4) {
			case 0:
				raw.Set(key, true)
			case 1:
				if key == "_id" {
					raw.Set(key, false)
				}
			case 2:
				if r.Intn(10) == 0 {
					raw.Set(key+".x", int32(1))
				}
			}
		}

		if raw.Len() == 0 {
			continue
		}

		projection, inclusion, err := ValidateProjection(raw)
		if err != nil {
			continue
		}

		expected, err := ProjectDocument(doc, projection, must.NotFail(types.NewDocument()), inclusion)
		require.NoError(t, err)

		plain := newPlainInclusion(projection, inclusion)
		if plain == nil {
			continue
		}

		actual, ok := plain.project(doc)
		if !ok {
			continue
		}

		short++
		require.Equal(t, expected, actual, "%v %v", types.FormatAnyValue(doc), types.FormatAnyValue(raw))
	}

	require.Greater(t, short, 5000)
}
