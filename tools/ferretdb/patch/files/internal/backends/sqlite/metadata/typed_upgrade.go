// Added to FerretDB v1.24.2 by the leadops project (Apache License 2.0, as the module it is added to).

package metadata

import (
	"context"
	"fmt"

	"github.com/FerretDB/FerretDB/internal/backends"
	"github.com/FerretDB/FerretDB/internal/util/fsql"
	"github.com/FerretDB/FerretDB/internal/util/lazyerrors"
)

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
// columns in place, createTypedIndexes makes them again over the columns). A table that has the column, as every
// table made since has, is told from a read on the pool, so opening a folder takes no write transaction for it;
// the upgrade reads the columns again inside its transaction, before its DDL (see tableColumns).
func ensureIDColumn(ctx context.Context, db *fsql.DB, c *Collection) error {
	columns, err := tableColumns(ctx, db, c.TableName)
	if err != nil {
		return err
	}

	if columns[IDColumn] {
		return nil
	}

	return db.InTransaction(ctx, func(tx *fsql.Tx) error {
		columns, err := tableColumns(ctx, tx, c.TableName)
		if err != nil {
			return err
		}

		if columns[IDColumn] {
			return nil
		}

		expressionIndexes, err := queryNames(
			ctx, tx,
			`SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = ? AND (name GLOB ? OR name GLOB ?)`,
			c.TableName, TypedIndexName(c.TableName, "*"), OddValuesIndexName(c.TableName, "*"),
		)
		if err != nil {
			return err
		}

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
