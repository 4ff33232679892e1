// Added to FerretDB v1.24.2 by the leadops project (Apache License 2.0, as the module it is added to).

package metadata

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

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

// RankColumn is the quoted name of the column holding the rank of a field a typed index covers.
func RankColumn(field string) string {
	return fmt.Sprintf("%q", backends.ReservedPrefix+"r_"+field)
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

// writtenFields holds, per table of a database, the fields whose typed columns writes fill in (TypedFields
// of the collection as its indexes stand in the file). It changes inside a write transaction, and writes read
// it inside theirs, so a write never misses a column an index creation added meanwhile.
var writtenFields sync.Map // tableKey -> []string

type tableKey struct {
	db    *fsql.DB
	table string
}

// WrittenFields returns the fields whose typed columns a write to the table fills in. Call it inside the
// write's transaction.
func WrittenFields(db *fsql.DB, table string) []string {
	fields, _ := writtenFields.Load(tableKey{db, table})
	f, _ := fields.([]string)

	return f
}

// forgetWrittenFields forgets the written fields of a dropped table (a table of the same name made later
// starts without typed columns), or of every table of a dropped database when table is empty.
func forgetWrittenFields(db *fsql.DB, table string) {
	writtenFields.Range(func(key, _ any) bool {
		if k := key.(tableKey); k.db == db && (table == "" || k.table == table) {
			writtenFields.Delete(key)
		}

		return true
	})
}

// tableColumns returns the names of the columns of a table.
func tableColumns(ctx context.Context, db *fsql.DB, table string) (map[string]bool, error) {
	rows, err := db.QueryContext(ctx, `SELECT name FROM pragma_table_info(?)`, table)
	if err != nil {
		return nil, lazyerrors.Error(err)
	}
	defer rows.Close()

	columns := map[string]bool{}

	for rows.Next() {
		var name string
		if err = rows.Scan(&name); err != nil {
			return nil, lazyerrors.Error(err)
		}

		columns[name] = true
	}

	if err = rows.Err(); err != nil {
		return nil, lazyerrors.Error(err)
	}

	return columns, nil
}

// createTypedIndexes gives each field a typed index covers its columns (filled from the documents stored),
// then adds the typed index of each declared index that has only plain fields, and the odd-values index of
// each of their fields. Existing ones are kept. It runs as one write transaction.
func createTypedIndexes(ctx context.Context, db *fsql.DB, c *Collection) error {
	table := c.TableName

	columns, err := tableColumns(ctx, db, table)
	if err != nil {
		return err
	}

	fields := c.TypedFields()

	return db.InTransaction(ctx, func(tx *fsql.Tx) error {
		for _, field := range fields {
			if columns[backends.ReservedPrefix+"r_"+field] {
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
	columns, err := tableColumns(ctx, db, c.TableName)
	if err != nil {
		return err
	}

	return db.InTransaction(ctx, func(tx *fsql.Tx) error {
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
				if c.HasTypedIndexOn(key.Field) || !columns[backends.ReservedPrefix+"r_"+key.Field] {
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

				delete(columns, backends.ReservedPrefix+"r_"+key.Field)
			}
		}

		writtenFields.Store(tableKey{db, c.TableName}, c.TypedFields())

		return nil
	})
}

// ensureTypedIndexes gives the collections of a database opened from files the columns and typed indexes
// they lack (files written by an unpatched FerretDB, or by an earlier patch, whose typed indexes were over
// expressions of the document), drops the JSON-text indexes FerretDB made for indexes a typed one now serves
// (every write pays for each index), and drops the _id index an earlier version of the leadops wrapper kept
// beside each table.
func ensureTypedIndexes(ctx context.Context, db *fsql.DB, colls map[string]*Collection) error {
	for _, c := range colls {
		if err := ensureIDColumn(ctx, db, c); err != nil {
			return err
		}

		if err := createTypedIndexes(ctx, db, c); err != nil {
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

// ensureIDColumn gives a table written before IDColumn existed that column, filled, with the _id index on it
// instead of on the document's text, and drops the typed indexes over expressions of the document (with the
// columns in place, createTypedIndexes makes them again over the columns).
func ensureIDColumn(ctx context.Context, db *fsql.DB, c *Collection) error {
	columns, err := tableColumns(ctx, db, c.TableName)
	if err != nil {
		return err
	}

	if columns[IDColumn] {
		return nil
	}

	rows, err := db.QueryContext(
		ctx,
		`SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = ? AND (name GLOB ? OR name GLOB ?)`,
		c.TableName, TypedIndexName(c.TableName, "*"), OddValuesIndexName(c.TableName, "*"),
	)
	if err != nil {
		return lazyerrors.Error(err)
	}

	var expressionIndexes []string

	for rows.Next() {
		var name string
		if err = rows.Scan(&name); err != nil {
			rows.Close()
			return lazyerrors.Error(err)
		}

		expressionIndexes = append(expressionIndexes, name)
	}

	rows.Close()

	if err = rows.Err(); err != nil {
		return lazyerrors.Error(err)
	}

	return db.InTransaction(ctx, func(tx *fsql.Tx) error {
		for _, name := range expressionIndexes {
			if _, err := tx.ExecContext(ctx, fmt.Sprintf(`DROP INDEX %q`, name)); err != nil {
				return lazyerrors.Error(err)
			}
		}

		idIndex := c.TableName + "_" + backends.DefaultIndexName

		return execEach(ctx, tx,
			fmt.Sprintf(`ALTER TABLE %q ADD COLUMN %s TEXT`, c.TableName, IDColumn),
			fmt.Sprintf(`UPDATE %q SET %s = %s`, c.TableName, IDColumn, IDExpression),
			fmt.Sprintf(`DROP INDEX IF EXISTS %q`, idIndex),
			fmt.Sprintf(`CREATE UNIQUE INDEX %q ON %q (%s)`, idIndex, c.TableName, IDColumn),
		)
	})
}

// execEach runs statements one after the other in a transaction, stopping at the first that fails.
func execEach(ctx context.Context, tx *fsql.Tx, statements ...string) error {
	for _, q := range statements {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return lazyerrors.Error(err)
		}
	}

	return nil
}
