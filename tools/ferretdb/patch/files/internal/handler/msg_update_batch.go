// Added to FerretDB v1.24.2 by the leadops project (Apache License 2.0, as the module it is added to).

package handler

import (
	"context"

	"github.com/FerretDB/FerretDB/internal/backends"
	"github.com/FerretDB/FerretDB/internal/handler/common"
	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/iterator"
	"github.com/FerretDB/FerretDB/internal/util/lazyerrors"
	"github.com/FerretDB/FerretDB/internal/util/must"
)

// maxBatchedUpdates bounds the statements of one command run together (their documents are held in memory).
const maxBatchedUpdates = 1000

// updateResult is what an update command answers: the documents matched and modified, and the upserted ids.
type updateResult struct {
	matched, modified int32
	upserted          *types.Array
}

// upsertedID adds an upserted document's id to the answer.
func (r *updateResult) upsertedID(id any) {
	r.upserted.Append(must.NotFail(types.NewDocument(
		"index", int32(r.upserted.Len()),
		"_id", id,
	)))

	// in case of upsert, MongoDB sets the matched count to 1
	r.matched++
}

// recordingCollection keeps the writes of common.UpdateDocument instead of making them, to make many at once.
type recordingCollection struct {
	backends.Collection
	inserted []*types.Document
	updated  []*types.Document
	before   []*types.Document // of each updated one, as it was read (nil when not known)
}

// InsertAll implements backends.Collection interface.
func (c *recordingCollection) InsertAll(_ context.Context, params *backends.InsertAllParams) (*backends.InsertAllResult, error) {
	c.inserted = append(c.inserted, params.Docs...)
	return new(backends.InsertAllResult), nil
}

// UpdateAll implements backends.Collection interface.
func (c *recordingCollection) UpdateAll(_ context.Context, params *backends.UpdateAllParams) (*backends.UpdateAllResult, error) {
	c.updated = append(c.updated, params.Docs...)
	for i := range params.Docs {
		var before *types.Document
		if i < len(params.Before) {
			before = params.Before[i]
		}

		c.before = append(c.before, before)
	}

	return &backends.UpdateAllResult{Updated: int32(len(params.Docs))}, nil
}

// batchedIDs answers the string _id each statement names by equality when every statement updates one document
// and names a different one: then no statement can see another's change, and they can run together.
func batchedIDs(updates []common.Update) ([]string, bool) {
	if len(updates) < 2 || len(updates) > maxBatchedUpdates {
		return nil, false
	}

	ids := make([]string, len(updates))
	seen := make(map[string]struct{}, len(updates))

	for i, u := range updates {
		if u.Multi || u.Filter == nil {
			return nil, false
		}

		v, err := u.Filter.Get("_id")
		if err != nil {
			return nil, false
		}

		id, ok := v.(string)
		if !ok {
			return nil, false
		}

		if _, dup := seen[id]; dup {
			return nil, false
		}

		seen[id] = struct{}{}
		ids[i] = id
	}

	return ids, true
}

// updateByIDs runs an update command whose statements each name a different document by its string _id (see
// batchedIDs) with one read of all their documents and one SQLite transaction for all their changes, instead of a
// read and a transaction per statement. The collection's write lock is held throughout, so the documents read stay
// as they are until written.
//
// It answers false, having written nothing, for a command of another shape, or when a statement would insert a
// document or fails (an operator that does not apply, an index refusing a change): the caller then runs the
// statements one by one, as before, with their errors.
func (h *Handler) updateByIDs(ctx context.Context, db backends.Database, params *common.UpdateParams) (*updateResult, bool, error) {
	ids, ok := batchedIDs(params.Updates)
	if !ok || h.DisablePushdown {
		return nil, false, nil
	}

	c, err := db.Collection(params.Collection)
	if err != nil {
		return nil, false, nil
	}

	defer lockCollectionWrites(params.DB, params.Collection)()

	values := make([]any, len(ids))
	for i, id := range ids {
		values[i] = id
	}

	in := must.NotFail(types.NewDocument("$in", must.NotFail(types.NewArray(values...))))

	res, err := c.Query(ctx, &backends.QueryParams{Filter: must.NotFail(types.NewDocument("_id", in))})
	if err != nil {
		return nil, false, lazyerrors.Error(err)
	}

	docs, err := iterator.ConsumeValues(res.Iter)
	if err != nil {
		return nil, false, lazyerrors.Error(err)
	}

	byID := make(map[string]*types.Document, len(docs))

	for _, doc := range docs {
		if id, ok := must.NotFail(doc.Get("_id")).(string); ok {
			byID[id] = doc
		}
	}

	result := &updateResult{upserted: new(types.Array)}
	rec := &recordingCollection{Collection: c}

	for i, u := range params.Updates {
		var found []*types.Document
		if doc := byID[ids[i]]; doc != nil {
			found = append(found, doc)
		}

		closer := iterator.NewMultiCloser()
		iter := common.LimitIterator(common.FilterIterator(iterator.Values(iterator.ForSlice(found)), closer, u.Filter), closer, 1)

		r, err := common.UpdateDocument(ctx, rec, "update", iter, &u)

		closer.Close()

		// An upsert that inserts is left to the statements one by one: an insert can meet a racing one (inserts
		// take no lock), and the statements after it must then not have been written.
		if err != nil || len(rec.inserted) > 0 {
			return nil, false, nil
		}

		result.matched += r.Matched.Count
		result.modified += r.Modified.Count
	}

	if len(rec.updated) > 0 {
		if _, err = c.UpdateAll(ctx, &backends.UpdateAllParams{Docs: rec.updated, Before: rec.before}); err != nil {
			// an index refused a change: nothing was written
			return nil, false, nil
		}
	}

	return result, true, nil
}
