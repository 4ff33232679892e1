// Added to FerretDB v1.24.2 by the leadops project (Apache License 2.0, as the module it is added to).

package metadata

import (
	"encoding/hex"
	"math"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/FerretDB/FerretDB/internal/types"
)

// FieldColumnValues returns what the typed columns of the fields hold for a document — a rank and a value per
// field, in FieldColumns' order — computed in Go, where SQLite would compute them with FieldRankOf and
// FieldValueOf from the document's SJSON text, parsing the whole text again for every write. It answers false
// when a field holds a value whose SQL form is for SQLite alone to tell (a number with a fraction, a document,
// an array, binary data, a string that is not plain UTF-8, ...): such a document is written as before.
func FieldColumnValues(doc *types.Document, fields []string) ([]any, bool) {
	values := make([]any, 0, 2*len(fields))

	for _, field := range fields {
		v, err := doc.Get(field)
		if err != nil { // missing
			values = append(values, int64(RankNull), nil)
			continue
		}

		rank, value, ok := scalarColumns(v)
		if !ok {
			return nil, false
		}

		values = append(values, rank, value)
	}

	return values, true
}

// scalarColumns is the rank and the SQL value of a value as SQLite reads them from its SJSON (->>): the text
// of a string or an ObjectId, an integer for a whole number, milliseconds for a date, 1 or 0, NULL.
func scalarColumns(v any) (int64, any, bool) {
	switch v := v.(type) {
	case string:
		// encoding/json writes invalid UTF-8 as U+FFFD
		if !utf8.ValidString(v) {
			return 0, nil, false
		}

		return RankString, v, true
	case int32:
		return RankNumber, int64(v), true
	case int64:
		return RankNumber, v, true
	case float64:
		// a whole number is written without a fraction (1.0 as 1), which SQLite reads as an integer
		if v != math.Trunc(v) || math.Abs(v) >= 1<<53 {
			return 0, nil, false
		}

		return RankNumber, int64(v), true
	case bool:
		if v {
			return RankBool, int64(1), true
		}

		return RankBool, int64(0), true
	case time.Time:
		return RankDate, v.UnixMilli(), true
	case types.ObjectID:
		return RankObjectID, hex.EncodeToString(v[:]), true
	case types.NullType:
		return RankNull, nil, true
	}

	return 0, nil, false
}

// IDColumnValue returns what IDColumn holds for a document (the JSON text of its _id, as SQLite's -> gives it),
// computed in Go for an _id of a plain string, an ObjectId or an integer.
func IDColumnValue(doc *types.Document) (string, bool) {
	id, err := doc.Get("_id")
	if err != nil {
		return "", false
	}

	switch id := id.(type) {
	case string:
		for i := 0; i < len(id); i++ {
			if c := id[i]; c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
				return "", false
			}
		}

		return `"` + id + `"`, true
	case types.ObjectID:
		return `"` + hex.EncodeToString(id[:]) + `"`, true
	case int32:
		return strconv.FormatInt(int64(id), 10), true
	case int64:
		return strconv.FormatInt(id, 10), true
	}

	return "", false
}
