// Added to FerretDB v1.24.2 by the leadops project (Apache License 2.0, as the module it is added to).

package metadata

import (
	"database/sql"
	"math"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	_ "modernc.org/sqlite"

	"github.com/FerretDB/FerretDB/internal/handler/sjson"
	"github.com/FerretDB/FerretDB/internal/types"
)

var columnSamples = []any{
	"", "plain", "ünïcødé ✓", "quote\"in", "a<b>&c", "tab\tline\n", "\u2028", "😀", "nul\x00in", string([]byte{0xff}),
	int32(0), int32(-7), int32(math.MaxInt32), int64(1) << 62, -int64(1) << 62, int64(1)<<62 + 1, int64(math.MaxInt64),
	int64(math.MinInt64), int64(1) << 53, 0.0, math.Copysign(0, -1), 3.0, -2.5, 0.1, float64(1 << 53), float64(1<<53 + 2), 1e21, 5e-324, -4e15,
	true, false, time.UnixMilli(-86_400_000 * 400).UTC(), time.UnixMilli(1_700_000_000_123).UTC(),
	types.ObjectID{0xab, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, types.Null, types.Timestamp(42),
	types.Binary{Subtype: types.BinaryGeneric, B: []byte{1}}, types.Regex{Pattern: "^a", Options: "i"},
}

func randomColumnValue(r *rand.Rand) any {
	switch r.Intn(8) {
	case 0:
		d := types.MakeDocument(0)
		d.Set("x", columnSamples[r.Intn(len(columnSamples))])
		return d
	case 1:
		a := types.MakeArray(0)
		a.Append(columnSamples[r.Intn(len(columnSamples))])
		return a
	default:
		return columnSamples[r.Intn(len(columnSamples))]
	}
}

// TestFieldColumnValues checks that the typed columns and the _id column computed in Go hold what SQLite
// computes from the document's SJSON text with the expressions the indexes were made of, value and type
// (an integer is not a real, a text not a blob), over random documents of every type; and that a document
// with a value Go cannot tell exactly is left to SQLite.
func TestFieldColumnValues(t *testing.T) {
	t.Parallel()

	db, err := sql.Open("sqlite", ":memory:")
	require.NoError(t, err)

	t.Cleanup(func() { db.Close() })

	fields := []string{"a", "b", "c"}
	columns, expressions := FieldColumns("?1", fields)
	require.Len(t, columns, 6)

	query := "SELECT ?1->'$._id', typeof(?1->'$._id'), " + strings.Join(expressions, ", ")
	for _, e := range expressions {
		query += ", typeof(" + e + ")"
	}

	r := rand.New(rand.NewSource(3))
	computed, ids := 0, 0

	for i := 0; i < 5000; i++ {
		d := types.MakeDocument(0)
		d.Set("_id", randomColumnValue(r))

		for _, f := range fields {
			if r.Intn(5) > 0 {
				d.Set(f, randomColumnValue(r))
			}
		}

		text, err := sjson.Marshal(d)
		if err != nil {
			continue // a value SJSON cannot hold
		}

		got := make([]any, 2+2*len(expressions))
		ptrs := make([]any, len(got))

		for j := range got {
			ptrs[j] = &got[j]
		}

		require.NoError(t, db.QueryRow(query, string(text)).Scan(ptrs...))

		if id, ok := IDColumnValue(d); ok {
			ids++

			require.Equal(t, "text", got[1], "%s", text)
			require.Equal(t, got[0], id, "%s", text)
		}

		values, ok := FieldColumnValues(d, fields)
		if !ok {
			continue
		}

		computed++

		for j, v := range values {
			sqlType := got[2+len(expressions)+j]

			switch v := v.(type) {
			case nil:
				require.Equal(t, "null", sqlType, "%s column %d", text, j)
			case int64:
				require.Equal(t, "integer", sqlType, "%s column %d", text, j)
				require.Equal(t, v, got[2+j], "%s column %d", text, j)
			case string:
				require.Equal(t, "text", sqlType, "%s column %d", text, j)
				require.Equal(t, v, got[2+j], "%s column %d", text, j)
			default:
				t.Fatalf("%T", v)
			}
		}
	}

	require.Greater(t, computed, 500)
	require.Greater(t, ids, 1000)
}
