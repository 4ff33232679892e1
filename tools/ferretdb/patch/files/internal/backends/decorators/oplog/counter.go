// Added to FerretDB v1.24.2 by the leadops project (Apache License 2.0, as the module it is added to).

package oplog

import (
	"context"

	"github.com/FerretDB/FerretDB/internal/backends"
	"github.com/FerretDB/FerretDB/internal/types"
)

// CountExact implements backends.Counter interface by passing the count to the wrapped collection.
func (c *collection) CountExact(ctx context.Context, filter *types.Document) (int64, bool, error) {
	counter, ok := c.origC.(backends.Counter)
	if !ok {
		return 0, false, nil
	}

	return counter.CountExact(ctx, filter)
}

// check interfaces
var (
	_ backends.Counter = (*collection)(nil)
)
