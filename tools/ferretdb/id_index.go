package main

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	_ "modernc.org/sqlite" // the SQLite driver FerretDB itself uses
)

// FerretDB 1.24's SQLite backend finds a document by _id with the expression
// _ferretdb_sjson->'$._id' but indexes _id as _ferretdb_sjson->"_id", and
// SQLite uses an expression index only for the identical expression: every
// find, update and delete by _id scans the whole table. keepIDIndexes gives
// each collection's table the index those lookups can use, checking for new
// collections every second, so a lookup by _id costs the same at any size.
func keepIDIndexes(ctx context.Context, sqliteURL string, logger *slog.Logger) {
	dir := sqliteDir(sqliteURL)
	if dir == "" {
		return
	}

	ticker := time.NewTicker(time.Second)
	defer ticker.Stop()

	for {
		files, _ := filepath.Glob(filepath.Join(dir, "*.sqlite"))
		for _, file := range files {
			if err := indexTables(ctx, file); err != nil {
				logger.Debug("id index check failed", "file", file, "error", err)
			}
		}

		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
	}
}

// sqliteDir is the directory of a FerretDB --sqlite-url such as file:data/ (empty for in-memory databases).
func sqliteDir(sqliteURL string) string {
	u, err := url.Parse(sqliteURL)
	if err != nil || u.Query().Get("mode") == "memory" {
		return ""
	}

	return strings.TrimPrefix(u.Opaque+u.Path, "file:")
}

// indexTables adds the _id lookup index to every collection table of one database file that lacks it
// (asking SQLite which lack it, so a collection dropped and created again is indexed again).
func indexTables(ctx context.Context, file string) error {
	db, err := sql.Open("sqlite", "file:"+file+"?_pragma=busy_timeout(10000)")
	if err != nil {
		return err
	}
	defer db.Close()

	rows, err := db.QueryContext(ctx, `SELECT c.table_name FROM _ferretdb_collections c
		WHERE NOT EXISTS (SELECT 1 FROM sqlite_master m WHERE m.type = 'index' AND m.name = c.table_name || '_id_lookup')`)
	if err != nil {
		return err // no collection yet
	}

	var tables []string
	for rows.Next() {
		var table string
		if err := rows.Scan(&table); err != nil {
			rows.Close()
			return err
		}
		tables = append(tables, table)
	}
	rows.Close()

	for _, table := range tables {
		q := fmt.Sprintf(`CREATE INDEX IF NOT EXISTS %q ON %q (_ferretdb_sjson->'$._id')`, table+"_id_lookup", table)
		if _, err := db.ExecContext(ctx, q); err != nil {
			return err
		}
	}

	return nil
}
