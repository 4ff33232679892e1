// Added to FerretDB v1.24.2 by the leadops project (Apache License 2.0, as the module it is added to).

package metadata

import (
	"context"
	"sync"

	"github.com/FerretDB/FerretDB/internal/util/fsql"
	"github.com/FerretDB/FerretDB/internal/util/lazyerrors"
)

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

// querier is a database or a transaction.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*fsql.Rows, error)
}

// tableColumns returns the names of the columns of a table. Before DDL in a transaction, ask it in that
// transaction: the pragma reads the schema as it is in the file, and the statements after it are then parsed
// against that, not against the connection's copy of it (the one connection transactions run on keeps its copy
// across the DDL other connections run, so a table dropped and made again would still look as it was).
func tableColumns(ctx context.Context, db querier, table string) (map[string]bool, error) {
	names, err := queryNames(ctx, db, `SELECT name FROM pragma_table_info(?)`, table)
	if err != nil {
		return nil, err
	}

	columns := make(map[string]bool, len(names))
	for _, name := range names {
		columns[name] = true
	}

	return columns, nil
}

// queryNames returns the one text column of a query's rows.
func queryNames(ctx context.Context, db querier, query string, args ...any) ([]string, error) {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, lazyerrors.Error(err)
	}
	defer rows.Close()

	var names []string

	for rows.Next() {
		var name string
		if err = rows.Scan(&name); err != nil {
			return nil, lazyerrors.Error(err)
		}

		names = append(names, name)
	}

	if err = rows.Err(); err != nil {
		return nil, lazyerrors.Error(err)
	}

	return names, nil
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
