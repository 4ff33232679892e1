// Added to FerretDB v1.24.2 by the leadops project (Apache License 2.0, as the module it is added to).

package fsql

import (
	"container/list"
	"context"
	"database/sql"
	"strings"
	"sync"
)

// stmtCacheSize bounds the statements kept prepared per database (each is also prepared
// once per pool connection that runs it).
const stmtCacheSize = 256

// stmtCache keeps the statements a database runs prepared, most recently used first.
//
// SQLite compiles a statement into a program before running it; for a collection with many
// typed expression indexes an UPDATE compiles the upkeep of every index, which costs more
// than running it. Kept prepared, a statement is compiled once per connection.
type stmtCache struct {
	mu    sync.Mutex
	byKey map[string]*list.Element // of *cachedStmt
	order *list.List
}

type cachedStmt struct {
	query string
	stmt  *sql.Stmt
}

func newStmtCache() *stmtCache {
	return &stmtCache{byKey: map[string]*list.Element{}, order: list.New()}
}

// cacheable is a statement that reads or writes rows; schema changes and pragmas run as they come.
func cacheable(query string) bool {
	head := strings.ToUpper(strings.TrimSpace(query))
	for _, verb := range []string{"SELECT", "INSERT", "UPDATE", "DELETE"} {
		if strings.HasPrefix(head, verb) {
			return true
		}
	}

	return false
}

// get returns the prepared statement for query, preparing it if needed; nil when query is not
// cacheable or cannot be prepared (the caller then runs it unprepared, and gets its error).
func (c *stmtCache) get(ctx context.Context, db *sql.DB, query string) *sql.Stmt {
	if c == nil || !cacheable(query) {
		return nil
	}

	c.mu.Lock()
	if e, ok := c.byKey[query]; ok {
		c.order.MoveToFront(e)
		c.mu.Unlock()

		return e.Value.(*cachedStmt).stmt
	}
	c.mu.Unlock()

	stmt, err := db.PrepareContext(ctx, query)
	if err != nil {
		return nil
	}

	c.mu.Lock()
	defer c.mu.Unlock()

	if e, ok := c.byKey[query]; ok {
		// prepared meanwhile by another caller: keep that one
		_ = stmt.Close()
		return e.Value.(*cachedStmt).stmt
	}

	c.byKey[query] = c.order.PushFront(&cachedStmt{query: query, stmt: stmt})

	if c.order.Len() > stmtCacheSize {
		oldest := c.order.Remove(c.order.Back()).(*cachedStmt)
		delete(c.byKey, oldest.query)
		// database/sql closes it once no query uses it any more
		_ = oldest.stmt.Close()
	}

	return stmt
}

// close closes every cached statement.
func (c *stmtCache) close() {
	if c == nil {
		return
	}

	c.mu.Lock()
	defer c.mu.Unlock()

	for _, e := range c.byKey {
		_ = e.Value.(*cachedStmt).stmt.Close()
	}

	c.byKey = map[string]*list.Element{}
	c.order.Init()
}
