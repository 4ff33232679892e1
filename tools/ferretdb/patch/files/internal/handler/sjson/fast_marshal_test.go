// Added to FerretDB v1.24.2 by the leadops project (Apache License 2.0, as the module it is added to).

package sjson

import (
	"math"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/must"
)

// TestMarshalFast checks that Marshal writes the same bytes with its fast path as without it, over random
// documents (randomValue's types, strings to escape, numbers at the edges of each form) and a lead-shaped
// one; and that what the fast path leaves (binary data, regular expressions, non-finite numbers) is left.
func TestMarshalFast(t *testing.T) {
	t.Parallel()

	r := rand.New(rand.NewSource(2))
	fast := 0
	edges := []float64{1e-6, 9.99e-7, 1e21, 9.99e20, -1e-7, 123456789e-15, 1e-300, math.MaxFloat64, 0.1, 100}
	html := []string{"a<b>&c", "AT&T", "x>y", "\u2028 \u2029", "\x7f", "tab\t\r\n\b\f", "é" + string([]byte{0xc3})}

	for i := 0; i < 20000; i++ {
		d := randomDocument(r, 3)
		d.Set("e"+string(rune('0'+r.Intn(10))), edges[r.Intn(len(edges))])
		d.Set(html[r.Intn(len(html))], html[r.Intn(len(html))])

		expected, err := marshalSlow(d)
		require.NoError(t, err)

		actual, ok := marshalFast(d)
		if !ok {
			continue
		}

		fast++

		require.Equal(t, string(expected), string(actual))

		got, err := Marshal(d)
		require.NoError(t, err)
		require.Equal(t, string(expected), string(got))
	}

	require.Greater(t, fast, 2000)

	lead := types.MakeDocument(0)
	lead.Set("_id", "ld_6f0c2b")
	lead.Set("workspaceId", "ws_1")
	lead.Set("email", "ana.lópez@example.com")
	lead.Set("score", int32(70))
	lead.Set("createdAt", types.Timestamp(1))
	lead.Set("tags", types.MakeArray(0))
	lead.Set("custom", types.MakeDocument(0))
	expected, err := marshalSlow(lead)
	require.NoError(t, err)

	actual, ok := marshalFast(lead)
	require.True(t, ok)
	require.Equal(t, string(expected), string(actual))

	for _, left := range []any{
		types.Binary{Subtype: types.BinaryGeneric, B: []byte{1}},
		types.Regex{Pattern: "a", Options: "i"},
		math.NaN(),
		math.Inf(-1),
		must.NotFail(types.NewArray(types.Regex{Pattern: "a"})),
	} {
		d := must.NotFail(types.NewDocument("_id", "x", "v", left))
		_, ok := marshalFast(d)
		require.False(t, ok, "%v", left)
	}
}
