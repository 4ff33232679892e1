// Added to FerretDB v1.24.2 by the leadops project (Apache License 2.0, as the module it is added to).

package handler

import (
	"context"
	"math"

	"github.com/FerretDB/FerretDB/internal/backends"
	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/must"
)

// fieldSort is the sort a backend may apply itself: a validated sort on fields, not $natural.
func fieldSort(sort *types.Document) *types.Document {
	if sort.Len() == 0 || sort.Has("$natural") {
		return nil
	}

	return sort
}

// countExact counts the documents filter matches without reading them, when the collection
// can evaluate the filter exactly; skip and limit apply as the count command applies them.
func countExact(ctx context.Context, c backends.Collection, filter *types.Document, skip, limit int64) (int64, bool, error) {
	counter, ok := c.(backends.Counter)
	if !ok {
		return 0, false, nil
	}

	n, ok, err := counter.CountExact(ctx, filter)
	if err != nil || !ok {
		return 0, false, err
	}

	n = max(n-max(skip, 0), 0)

	if limit < 0 {
		limit = -limit
	}

	if limit > 0 {
		n = min(n, limit)
	}

	return n, true, nil
}

// countPipeline recognises the pipeline countDocuments sends
// ([{$match}, {$skip}?, {$limit}?, {$group: {_id: <constant>, <name>: {$sum: 1}}}]).
type countPipeline struct {
	filter      *types.Document
	skip, limit int64
	groupID     any
	countField  string
}

func parseCountPipeline(stages []any) (*countPipeline, bool) {
	if len(stages) < 2 || len(stages) > 4 {
		return nil, false
	}

	var p countPipeline

	match, ok := singleStage(stages[0], "$match").(*types.Document)
	if !ok {
		return nil, false
	}

	p.filter = match

	next := 1
	if n, ok := integer(singleStage(stages[next], "$skip")); ok && next < len(stages)-1 {
		p.skip = n
		next++
	}

	if n, ok := integer(singleStage(stages[next], "$limit")); ok && next < len(stages)-1 {
		p.limit = n
		next++
	}

	if next != len(stages)-1 {
		return nil, false
	}

	group, ok := singleStage(stages[next], "$group").(*types.Document)
	if !ok || group.Len() != 2 || group.Keys()[0] != "_id" {
		return nil, false
	}

	p.groupID = group.Values()[0]
	if _, ok := integer(p.groupID); !ok {
		return nil, false
	}

	p.countField = group.Keys()[1]

	sum, ok := group.Values()[1].(*types.Document)
	if !ok || sum.Len() != 1 || sum.Keys()[0] != "$sum" {
		return nil, false
	}

	if one, ok := integer(sum.Values()[0]); !ok || one != 1 {
		return nil, false
	}

	return &p, true
}

// singleStage is the operand of a pipeline stage that is exactly {name: operand}, else nil.
func singleStage(stage any, name string) any {
	doc, ok := stage.(*types.Document)
	if !ok || doc.Len() != 1 || doc.Keys()[0] != name {
		return nil
	}

	return doc.Values()[0]
}

// integer is a whole number of any BSON number type.
func integer(v any) (int64, bool) {
	switch v := v.(type) {
	case int32:
		return int64(v), true
	case int64:
		return v, true
	case float64:
		if v == float64(int64(v)) {
			return int64(v), true
		}
	}

	return 0, false
}

// countDocuments answers a countDocuments pipeline without reading documents when the
// collection can evaluate its filter exactly: the one document $group makes, or none.
func countDocuments(ctx context.Context, c backends.Collection, stages []any) ([]*types.Document, bool, error) {
	p, ok := parseCountPipeline(stages)
	if !ok || p.limit < 0 {
		return nil, false, nil
	}

	n, ok, err := countExact(ctx, c, p.filter, p.skip, p.limit)
	if err != nil || !ok {
		return nil, false, err
	}

	if n == 0 {
		return nil, true, nil
	}

	var count any = n
	if n <= math.MaxInt32 {
		count = int32(n)
	}

	return []*types.Document{must.NotFail(types.NewDocument("_id", p.groupID, p.countField, count))}, true, nil
}
