// Added to FerretDB v1.24.2 by the leadops project (Apache License 2.0, as the module it is added to).

package metadata

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/FerretDB/FerretDB/internal/backends"
	"github.com/FerretDB/FerretDB/internal/util/fsql"
	"github.com/FerretDB/FerretDB/internal/util/lazyerrors"
)

// A document is stored as SJSON: its values as JSON, their BSON types in the "$s" schema.
// FerretDB's own indexes are on the JSON text of a field (_ferretdb_sjson->"field"), which
// orders numbers and dates as text and cannot tell a string from an ObjectId. The typed
// expressions below give each top-level field a (rank, value) pair that SQLite compares the
// way FerretDB compares BSON values: the rank is the BSON type order (types.compareTypeOrder),
// the value is the SQL value of the JSON (->>): TEXT for strings and ObjectIds, INTEGER or
// REAL for numbers (compared numerically across int, long and double), INTEGER milliseconds
// for dates, 1 or 0 for booleans, NULL for null and for a missing field.
//
// SQLite uses an expression index only for a query that writes the identical expression,
// so indexes (here) and queries (../pushdown.go) build them with the same functions.

// Type ranks, in BSON comparison order.
const (
	RankNull      = 1 // null, or the field is missing
	RankNumber    = 3
	RankString    = 4
	RankObject    = 5
	RankArray     = 6
	RankBinData   = 7
	RankObjectID  = 8
	RankBool      = 9
	RankDate      = 10
	RankTimestamp = 11
	RankRegex     = 12
)

// OddRanks lists the ranks whose values SQLite cannot compare as FerretDB does
// (documents, arrays, binary data, timestamps and regular expressions).
const OddRanks = "(5, 6, 7, 11, 12)"

// plainField matches the field names the typed expressions are built for:
// top-level names that need no quoting inside a JSON path or an SQL string.
var plainField = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`)

// IsPlainField reports whether typed expressions can be built for a field name.
func IsPlainField(field string) bool {
	return plainField.MatchString(field)
}

// FieldRank is the SQL expression of the BSON type rank of a top-level field.
func FieldRank(field string) string {
	return fmt.Sprintf(
		`(CASE %s->>'$."$s".p."%s".t'`+
			` WHEN 'int' THEN 3 WHEN 'long' THEN 3 WHEN 'double' THEN 3 WHEN 'string' THEN 4`+
			` WHEN 'object' THEN 5 WHEN 'array' THEN 6 WHEN 'binData' THEN 7 WHEN 'objectId' THEN 8`+
			` WHEN 'bool' THEN 9 WHEN 'date' THEN 10 WHEN 'timestamp' THEN 11 WHEN 'regex' THEN 12`+
			` ELSE 1 END)`,
		DefaultColumn, field,
	)
}

// FieldValue is the SQL expression of the value of a top-level field.
func FieldValue(field string) string {
	return fmt.Sprintf(`%s->>'$."%s"'`, DefaultColumn, field)
}

// FieldType is the SQL expression of the BSON type name of a top-level field (NULL when missing).
func FieldType(field string) string {
	return fmt.Sprintf(`%s->>'$."$s".p."%s".t'`, DefaultColumn, field)
}

// OddValuesCondition selects the documents whose field holds a value of an odd rank;
// the partial index of OddValuesIndexName serves exactly this condition.
func OddValuesCondition(field string) string {
	return fmt.Sprintf("%s IN %s", FieldRank(field), OddRanks)
}

// TypedIndexName is the name of the typed index kept beside a declared index.
func TypedIndexName(table, index string) string {
	return "_ferretdb_typed_" + table + "_" + index
}

// OddValuesIndexName is the name of the partial index of the documents whose field holds a value of an odd rank.
func OddValuesIndexName(table, field string) string {
	return "_ferretdb_odd_" + table + "_" + field
}

// typedFields returns the fields of an index when every one of them can have typed expressions.
func typedFields(index IndexInfo) ([]IndexKeyPair, bool) {
	for _, key := range index.Key {
		if !IsPlainField(key.Field) {
			return nil, false
		}
	}

	return index.Key, true
}

// HasTypedReplacement reports whether a declared index is served by its typed index alone: every index
// of plain fields but _id's, whose JSON-text index FerretDB looks documents up by (IDColumn). A unique
// typed index enforces uniqueness on the typed values: values MongoDB holds equal (5 and 5.0) collide,
// values of different types (a date and a number) do not, and missing fields do not, as in FerretDB.
func HasTypedReplacement(index IndexInfo) bool {
	_, ok := typedFields(index)
	return ok && index.Name != backends.DefaultIndexName
}

// HasTypedIndexOn reports whether a typed index covers the field, so its odd-values index exists too.
func (c *Collection) HasTypedIndexOn(field string) bool {
	for _, index := range c.Settings.Indexes {
		keys, ok := typedFields(index)
		if !ok {
			continue
		}

		for _, key := range keys {
			if key.Field == field {
				return true
			}
		}
	}

	return false
}

// createTypedIndexes adds the typed index of each declared index that has only plain fields,
// and the odd-values index of each of their fields. Existing ones are kept.
func createTypedIndexes(ctx context.Context, db *fsql.DB, table string, indexes []IndexInfo) error {
	for _, index := range indexes {
		keys, ok := typedFields(index)
		if !ok {
			continue
		}

		columns := make([]string, 0, 2*len(keys))

		for _, key := range keys {
			order := ""
			if key.Descending {
				order = " DESC"
			}

			columns = append(columns, FieldRank(key.Field)+order, FieldValue(key.Field)+order)

			q := fmt.Sprintf(
				`CREATE INDEX IF NOT EXISTS %q ON %q (%s) WHERE %s`,
				OddValuesIndexName(table, key.Field), table, FieldRank(key.Field), OddValuesCondition(key.Field),
			)
			if _, err := db.ExecContext(ctx, q); err != nil {
				return lazyerrors.Error(err)
			}
		}

		unique := ""
		if index.Unique && HasTypedReplacement(index) {
			unique = "UNIQUE "
		}

		q := fmt.Sprintf(
			`CREATE %sINDEX IF NOT EXISTS %q ON %q (%s)`,
			unique, TypedIndexName(table, index.Name), table, strings.Join(columns, ", "),
		)
		if _, err := db.ExecContext(ctx, q); err != nil {
			return lazyerrors.Error(err)
		}
	}

	return nil
}

// dropTypedIndexes drops the typed indexes of dropped indexes, and the odd-values
// indexes of fields no remaining index covers.
func dropTypedIndexes(ctx context.Context, db *fsql.DB, c *Collection, dropped []IndexInfo) error {
	for _, index := range dropped {
		if _, ok := typedFields(index); !ok {
			continue
		}

		q := fmt.Sprintf(`DROP INDEX IF EXISTS %q`, TypedIndexName(c.TableName, index.Name))
		if _, err := db.ExecContext(ctx, q); err != nil {
			return lazyerrors.Error(err)
		}

		for _, key := range index.Key {
			if c.HasTypedIndexOn(key.Field) {
				continue
			}

			q = fmt.Sprintf(`DROP INDEX IF EXISTS %q`, OddValuesIndexName(c.TableName, key.Field))
			if _, err := db.ExecContext(ctx, q); err != nil {
				return lazyerrors.Error(err)
			}
		}
	}

	return nil
}

// ensureTypedIndexes gives the collections of a database opened from files the typed
// indexes they lack (files written by an unpatched FerretDB), drops the JSON-text indexes
// FerretDB made for indexes a typed one now serves (every write pays for each index), and
// drops the _id index an earlier version of the leadops wrapper kept beside each table.
func ensureTypedIndexes(ctx context.Context, db *fsql.DB, colls map[string]*Collection) error {
	for _, c := range colls {
		if err := createTypedIndexes(ctx, db, c.TableName, c.Settings.Indexes); err != nil {
			return lazyerrors.Error(err)
		}

		replaced := []string{c.TableName + "_id_lookup"}

		for _, index := range c.Settings.Indexes {
			if HasTypedReplacement(index) {
				replaced = append(replaced, c.TableName+"_"+index.Name)
			}
		}

		for _, name := range replaced {
			if _, err := db.ExecContext(ctx, fmt.Sprintf(`DROP INDEX IF EXISTS %q`, name)); err != nil {
				return lazyerrors.Error(err)
			}
		}
	}

	return nil
}
