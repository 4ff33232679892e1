// Added to FerretDB v1.24.2 by the leadops project (Apache License 2.0, as the module it is added to).

package types

import "iter"

// Fields yields the document's fields in order without copying them (Keys and Values copy both); the
// document must not change while they are read.
func (d *Document) Fields() iter.Seq2[string, any] {
	return func(yield func(string, any) bool) {
		for _, f := range d.fields {
			if !yield(f.key, f.value) {
				return
			}
		}
	}
}

// HasDuplicateKeys reports whether a key is set more than once (Get, Set and Remove panic on such a key).
func (d *Document) HasDuplicateKeys() bool {
	return len(d.keys) != len(d.fields)
}
