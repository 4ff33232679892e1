// Added to FerretDB v1.24.2 by the leadops project (Apache License 2.0, as the module it is added to).

package types

import (
	"maps"
	"slices"
)

// ShallowCopy returns a copy of the document's fields that shares their values: what an update leaves of
// the document as it was read, for telling which top-level fields it changed (a value it changed in place,
// inside a document or an array, changes in the copy too).
func (d *Document) ShallowCopy() *Document {
	return &Document{keys: maps.Clone(d.keys), fields: slices.Clone(d.fields), recordID: d.recordID}
}
