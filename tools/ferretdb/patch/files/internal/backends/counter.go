// Added to FerretDB v1.24.2 by the leadops project (Apache License 2.0, as the module it is added to).

package backends

import (
	"context"

	"github.com/FerretDB/FerretDB/internal/types"
)

// Counter is implemented by collections that can count the documents a filter matches
// without reading them, when the filter is one they can evaluate exactly.
type Counter interface {
	// CountExact returns the number of documents filter matches, with ok true;
	// ok is false when the collection cannot evaluate filter exactly (count by reading then).
	CountExact(ctx context.Context, filter *types.Document) (n int64, ok bool, err error)
}

// CountExact implements Counter for every backend: it counts when the backend's collection can.
func (cc *collectionContract) CountExact(ctx context.Context, filter *types.Document) (int64, bool, error) {
	counter, ok := cc.c.(Counter)
	if !ok {
		return 0, false, nil
	}

	n, ok, err := counter.CountExact(ctx, filter)
	checkError(err)

	return n, ok, err
}

// check interfaces
var (
	_ Counter = (*collectionContract)(nil)
)
