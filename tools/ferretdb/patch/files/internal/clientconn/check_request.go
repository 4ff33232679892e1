// Added to FerretDB v1.24.2 by the leadops project (Apache License 2.0, as the module it is added to).

package clientconn

import (
	"errors"
	"math"

	"github.com/FerretDB/wire"
	"github.com/FerretDB/wire/wirebson"

	"github.com/FerretDB/FerretDB/internal/util/lazyerrors"
)

// checkRequest does for a request what wire.CheckNaNs did for every message, requests and replies alike:
// it decodes the whole of each document (route relies on it) and refuses a NaN anywhere in it. A reply holds
// what the handler built from stored documents, which cannot hold a NaN, and decoding each reply again cost
// up to 8% of the store's CPU when a find returned thousands of documents.
func checkRequest(body wire.MsgBody) error {
	msg, ok := body.(*wire.OpMsg)
	if !ok {
		return nil
	}

	for _, section := range msg.Sections() {
		for _, raw := range section.Documents() {
			doc, err := raw.DecodeDeep()
			if err != nil {
				return lazyerrors.Error(err)
			}

			if err = checkNaN(doc); err != nil {
				return lazyerrors.Error(err)
			}
		}
	}

	return nil
}

// errNaN is the wire package's answer to a NaN, word for word.
var errNaN = errors.New("NaN is not supported")

// checkNaN returns errNaN for a NaN anywhere in a decoded value, as the wire package's own (unexported) check.
func checkNaN(v any) error {
	switch v := v.(type) {
	case *wirebson.Document:
		for i := range v.Len() {
			if _, value := v.GetByIndex(i); checkNaN(value) != nil {
				return errNaN
			}
		}
	case *wirebson.Array:
		for i := range v.Len() {
			if checkNaN(v.Get(i)) != nil {
				return errNaN
			}
		}
	case float64:
		if math.IsNaN(v) {
			return errNaN
		}
	}

	return nil
}
