// Added to FerretDB v1.24.2 by the leadops project (Apache License 2.0, as the module it is added to).

package metadata

import (
	"context"
	"fmt"
	"regexp"
	"slices"
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

// FieldRank is the SQL expression of the BSON type rank of a top-level field of the document in DefaultColumn.
func FieldRank(field string) string {
	return FieldRankOf(DefaultColumn, field)
}

// FieldRankOf is the SQL expression of the BSON type rank of a top-level field of the SJSON text in src.
func FieldRankOf(src, field string) string {
	return fmt.Sprintf(
		`(CASE %s->>'$."$s".p."%s".t'`+
			` WHEN 'int' THEN 3 WHEN 'long' THEN 3 WHEN 'double' THEN 3 WHEN 'string' THEN 4`+
			` WHEN 'object' THEN 5 WHEN 'array' THEN 6 WHEN 'binData' THEN 7 WHEN 'objectId' THEN 8`+
			` WHEN 'bool' THEN 9 WHEN 'date' THEN 10 WHEN 'timestamp' THEN 11 WHEN 'regex' THEN 12`+
			` ELSE 1 END)`,
		src, field,
	)
}

// FieldValue is the SQL expression of the value of a top-level field of the document in DefaultColumn.
func FieldValue(field string) string {
	return FieldValueOf(DefaultColumn, field)
}

// FieldValueOf is the SQL expression of the value of a top-level field of the SJSON text in src.
func FieldValueOf(src, field string) string {
	return fmt.Sprintf(`%s->>'$."%s"'`, src, field)
}

// FieldType is the SQL expression of the BSON type name of a top-level field (NULL when missing).
func FieldType(field string) string {
	return fmt.Sprintf(`%s->>'$."$s".p."%s".t'`, DefaultColumn, field)
}

// A field a typed index covers has its rank and value stored in columns of their own, written with the
// document (see FieldColumns): an index over them is written again only when a write changes them, where an
// index over expressions of the document was written again on every write of it (in SQLite an update
// rewrites every index whose expression reads a changed column, and the document is one column).

// rankColumnName is the name of the column holding the rank of a field a typed index covers.
func rankColumnName(field string) string {
	return backends.ReservedPrefix + "r_" + field
}

// RankColumn is rankColumnName quoted, for SQL.
func RankColumn(field string) string {
	return fmt.Sprintf("%q", rankColumnName(field))
}

// ValueColumn is the quoted name of the column holding the value of a field a typed index covers.
func ValueColumn(field string) string {
	return fmt.Sprintf("%q", backends.ReservedPrefix+"v_"+field)
}

// Rank is the SQL of the rank of a top-level field: its column when a typed index covers it.
func (c *Collection) Rank(field string) string {
	if c.HasTypedIndexOn(field) {
		return RankColumn(field)
	}

	return FieldRank(field)
}

// Value is the SQL of the value of a top-level field: its column when a typed index covers it.
func (c *Collection) Value(field string) string {
	if c.HasTypedIndexOn(field) {
		return ValueColumn(field)
	}

	return FieldValue(field)
}

// OddValuesCondition selects the documents whose field holds a value of an odd rank;
// the partial index of OddValuesIndexName serves exactly this condition.
func OddValuesCondition(field string) string {
	return fmt.Sprintf("%s IN %s", RankColumn(field), OddRanks)
}

// TypedFields lists the fields some typed index covers, each once, in the order the indexes name them.
func (c *Collection) TypedFields() []string {
	var fields []string

	for _, index := range c.Settings.Indexes {
		keys, ok := typedFields(index)
		if !ok {
			continue
		}

		for _, key := range keys {
			if !slices.Contains(fields, key.Field) {
				fields = append(fields, key.Field)
			}
		}
	}

	return fields
}

// FieldColumns returns the columns of the typed fields and the SQL expressions of their values for the SJSON
// text in src, in the same order, for an insert or an update to write beside the document.
func FieldColumns(src string, fields []string) (columns, values []string) {
	for _, field := range fields {
		columns = append(columns, RankColumn(field), ValueColumn(field))
		values = append(values, FieldRankOf(src, field), FieldValueOf(src, field))
	}

	return columns, values
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
// of plain fields but _id's, which is over IDColumn, the column FerretDB looks documents up by. A unique
// typed index enforces uniqueness on the typed values: values MongoDB holds equal (5 and 5.0) collide,
// values of different types (a date and a number) do not, and missing fields do not, as in FerretDB.
func HasTypedReplacement(index IndexInfo) bool {
	_, ok := typedFields(index)
	return ok && index.Name != backends.DefaultIndexName
}

// HasTypedIndexOn reports whether a typed index covers the field, so its columns and odd-values index exist.
func (c *Collection) HasTypedIndexOn(field string) bool {
	return slices.Contains(c.TypedFields(), field)
}

// createTypedIndexes gives each field a typed index covers its columns (filled from the documents stored),
// then adds the typed index of each declared index that has only plain fields, and the odd-values index of
// each of their fields. Existing ones are kept. It runs as one write transaction.
func createTypedIndexes(ctx context.Context, db *fsql.DB, c *Collection) error {
	table := c.TableName
	fields := c.TypedFields()

	return db.InTransaction(ctx, func(tx *fsql.Tx) error {
		columns, err := tableColumns(ctx, tx, table)
		if err != nil {
			return err
		}

		for _, field := range fields {
			if columns[rankColumnName(field)] {
				continue
			}

			err := execEach(ctx, tx,
				fmt.Sprintf(`ALTER TABLE %q ADD COLUMN %s INTEGER`, table, RankColumn(field)),
				fmt.Sprintf(`ALTER TABLE %q ADD COLUMN %s ANY`, table, ValueColumn(field)),
				fmt.Sprintf(
					`UPDATE %q SET %s = %s, %s = %s`,
					table, RankColumn(field), FieldRank(field), ValueColumn(field), FieldValue(field),
				),
			)
			if err != nil {
				return err
			}
		}

		for _, index := range c.Settings.Indexes {
			keys, ok := typedFields(index)
			if !ok {
				continue
			}

			indexed := make([]string, 0, 2*len(keys))

			for _, key := range keys {
				order := ""
				if key.Descending {
					order = " DESC"
				}

				indexed = append(indexed, RankColumn(key.Field)+order, ValueColumn(key.Field)+order)

				q := fmt.Sprintf(
					`CREATE INDEX IF NOT EXISTS %q ON %q (%s) WHERE %s`,
					OddValuesIndexName(table, key.Field), table, RankColumn(key.Field), OddValuesCondition(key.Field),
				)
				if _, err := tx.ExecContext(ctx, q); err != nil {
					return lazyerrors.Error(err)
				}
			}

			unique := ""
			if index.Unique && HasTypedReplacement(index) {
				unique = "UNIQUE "
			}

			q := fmt.Sprintf(
				`CREATE %sINDEX IF NOT EXISTS %q ON %q (%s)`,
				unique, TypedIndexName(table, index.Name), table, strings.Join(indexed, ", "),
			)
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return lazyerrors.Error(err)
			}
		}

		writtenFields.Store(tableKey{db, table}, fields)

		return nil
	})
}

// dropTypedIndexes drops the typed indexes of dropped indexes, and the odd-values
// indexes and the columns of fields no remaining index covers.
func dropTypedIndexes(ctx context.Context, db *fsql.DB, c *Collection, dropped []IndexInfo) error {
	return db.InTransaction(ctx, func(tx *fsql.Tx) error {
		columns, err := tableColumns(ctx, tx, c.TableName)
		if err != nil {
			return err
		}

		for _, index := range dropped {
			if _, ok := typedFields(index); !ok {
				continue
			}

			q := fmt.Sprintf(`DROP INDEX IF EXISTS %q`, TypedIndexName(c.TableName, index.Name))
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return lazyerrors.Error(err)
			}
		}

		for _, index := range dropped {
			for _, key := range index.Key {
				if c.HasTypedIndexOn(key.Field) || !columns[rankColumnName(key.Field)] {
					continue
				}

				err := execEach(ctx, tx,
					fmt.Sprintf(`DROP INDEX IF EXISTS %q`, OddValuesIndexName(c.TableName, key.Field)),
					fmt.Sprintf(`ALTER TABLE %q DROP COLUMN %s`, c.TableName, RankColumn(key.Field)),
					fmt.Sprintf(`ALTER TABLE %q DROP COLUMN %s`, c.TableName, ValueColumn(key.Field)),
				)
				if err != nil {
					return err
				}

				delete(columns, rankColumnName(key.Field))
			}
		}

		writtenFields.Store(tableKey{db, c.TableName}, c.TypedFields())

		return nil
	})
}
