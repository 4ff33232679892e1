// Added to FerretDB v1.24.2 by the leadops project (Apache License 2.0, as the module it is added to).

package handler

import "sync"

// writeLocks holds one mutex per collection (*sync.Mutex by "database\x00collection").
//
// update, findAndModify and delete read the documents their filter matches, change them in Go,
// and write them back in another SQLite transaction. Without a lock two such commands on one
// document can both read it before either writes, so both conditions pass and one change is
// lost. Holding the collection's lock from the read to the write makes each command atomic for
// every client of this process, as a single-document write is on MongoDB. Inserts need no lock:
// a unique index refuses the second of two racing inserts.
var writeLocks sync.Map

// lockCollectionWrites takes the collection's write lock and returns its release.
func lockCollectionWrites(db, collection string) func() {
	l, _ := writeLocks.LoadOrStore(db+"\x00"+collection, new(sync.Mutex))
	m := l.(*sync.Mutex)
	m.Lock()

	return m.Unlock
}
