// Added to FerretDB v1.24.2 by the leadops project (Apache License 2.0, as the module it is added to).

package sjson

import (
	"encoding/hex"
	"encoding/json"
	"math"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/FerretDB/FerretDB/internal/types"
)

// marshalFast writes the bytes Marshal writes for d, in one pass into one buffer: Marshal builds the schema
// and every value in buffers of their own and encodes each scalar with encoding/json's reflection. It answers
// false for what it leaves to Marshal: binary data, regular expressions, a number JSON cannot hold, a key set
// twice (Marshal's errors and panics stay Marshal's).
func marshalFast(d *types.Document) ([]byte, bool) {
	e := fastEncoder{buf: make([]byte, 0, 1024)}

	e.buf = append(e.buf, `{"$s":`...)
	if !e.schema(d) {
		return nil, false
	}

	for key, value := range d.Fields() {
		// Marshal writes top-level keys as they are.
		e.buf = append(e.buf, ',', '"')
		e.buf = append(e.buf, key...)
		e.buf = append(e.buf, '"', ':')

		if !e.value(value) {
			return nil, false
		}
	}

	return append(e.buf, '}'), true
}

type fastEncoder struct {
	buf []byte
}

// schema writes what marshalSchemaForDoc returns.
func (e *fastEncoder) schema(d *types.Document) bool {
	if d.Len() == 0 {
		e.buf = append(e.buf, '{', '}')
		return true
	}

	e.buf = append(e.buf, `{"p":{`...)
	if !e.members(d, e.elem) {
		return false
	}

	e.buf = append(e.buf, `},"$k":[`...)

	first := true
	for key := range d.Fields() {
		if !first {
			e.buf = append(e.buf, ',')
		}

		first = false

		e.string(key)
	}

	e.buf = append(e.buf, ']', '}')

	return true
}

// members writes a document's fields as JSON object members: each key as a JSON string, its value by write.
// A key set twice is left to Marshal (which panics on it).
func (e *fastEncoder) members(d *types.Document, write func(any) bool) bool {
	if d.HasDuplicateKeys() {
		return false
	}

	first := true
	for key, value := range d.Fields() {
		if !first {
			e.buf = append(e.buf, ',')
		}

		first = false

		e.string(key)
		e.buf = append(e.buf, ':')

		if !write(value) {
			return false
		}
	}

	return true
}

// items writes an array's values, comma-separated, each by write.
func (e *fastEncoder) items(a *types.Array, write func(any) bool) bool {
	for i := 0; i < a.Len(); i++ {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}

		item, _ := a.Get(i)
		if !write(item) {
			return false
		}
	}

	return true
}

// elem writes what marshalElemForSingleValue returns.
func (e *fastEncoder) elem(value any) bool {
	switch v := value.(type) {
	case *types.Document:
		e.buf = append(e.buf, `{"t":"object","$s":`...)
		if !e.schema(v) {
			return false
		}

		e.buf = append(e.buf, '}')
	case *types.Array:
		e.buf = append(e.buf, `{"t":"array","i":[`...)
		if !e.items(v, e.elem) {
			return false
		}

		e.buf = append(e.buf, ']', '}')
	case types.Binary, types.Regex:
		return false // their schema holds more than the type
	default:
		e.buf = append(e.buf, `{"t":"`...)
		e.buf = append(e.buf, GetTypeOfValue(v)...)
		e.buf = append(e.buf, '"', '}')
	}

	return true
}

// value writes what MarshalSingleValue returns.
func (e *fastEncoder) value(value any) bool {
	switch v := value.(type) {
	case *types.Document:
		e.buf = append(e.buf, '{')
		if !e.members(v, e.value) {
			return false
		}

		e.buf = append(e.buf, '}')
	case *types.Array:
		e.buf = append(e.buf, '[')
		if !e.items(v, e.value) {
			return false
		}

		e.buf = append(e.buf, ']')
	case float64:
		return e.double(v)
	case string:
		e.string(v)
	case types.ObjectID:
		e.buf = append(e.buf, '"')
		e.buf = hex.AppendEncode(e.buf, v[:])
		e.buf = append(e.buf, '"')
	case bool:
		e.buf = strconv.AppendBool(e.buf, v)
	case time.Time:
		e.buf = strconv.AppendInt(e.buf, v.UnixMilli(), 10)
	case types.NullType:
		e.buf = append(e.buf, "null"...)
	case int32:
		e.buf = strconv.AppendInt(e.buf, int64(v), 10)
	case types.Timestamp:
		e.buf = strconv.AppendUint(e.buf, uint64(v), 10)
	case int64:
		e.buf = strconv.AppendInt(e.buf, v, 10)
	default:
		return false
	}

	return true
}

// double writes a number as encoding/json does (ES6's number to string); it has no form for NaN and infinities.
func (e *fastEncoder) double(f float64) bool {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return false
	}

	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}

	e.buf = strconv.AppendFloat(e.buf, f, format, -1, 64)

	if format == 'e' {
		// e-09 is written e-9
		n := len(e.buf)
		if n >= 4 && e.buf[n-4] == 'e' && e.buf[n-3] == '-' && e.buf[n-2] == '0' {
			e.buf[n-2] = e.buf[n-1]
			e.buf = e.buf[:n-1]
		}
	}

	return true
}

// string writes a JSON string as encoding/json does: text that needs no escape as it is, the rest by
// encoding/json itself (its escapes of HTML characters, control characters and invalid UTF-8).
func (e *fastEncoder) string(s string) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			b, _ := json.Marshal(s) // a string always encodes
			e.buf = append(e.buf, b...)

			return
		}
	}

	e.buf = append(e.buf, '"')
	e.buf = append(e.buf, s...)
	e.buf = append(e.buf, '"')
}
