// Copyright 2021 FerretDB Inc.
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.
// You may obtain a copy of the License at
//
//     http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS,
// WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
// See the License for the specific language governing permissions and
// limitations under the License.

package sjson

import (
	"bytes"
	"encoding/json"
	"strconv"
	"sync"
	"time"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/FerretDB/FerretDB/internal/types"
)

// unmarshalFast decodes a top-level document as Unmarshal does, for documents as Marshal writes them: the
// schema first, then the fields in the schema's order, keys without escapes. It reads the JSON text once, takes
// the schema from a cache of the schemas decoded before (most documents of a collection share a few), and
// decodes scalars without reflection. ok is false for anything else, which Unmarshal then decodes its own way,
// so that a document decodes to the same value, or fails with the same error, either way.
func unmarshalFast(data []byte) (*types.Document, bool) {
	fields, ok := scanObject(data)
	if !ok || len(fields) == 0 || fields[0].key != "$s" {
		return nil, false
	}

	sch := cachedSchema(fields[0].raw)
	if sch == nil {
		return nil, false
	}

	// A second schema field would be the one Unmarshal's map kept.
	for _, f := range fields[1:] {
		if f.key == "$s" {
			return nil, false
		}
	}

	return documentFast(fields[1:], sch)
}

// rawField is one member of a JSON object: its key (without escapes) and its value's text.
type rawField struct {
	key string
	raw []byte
}

// documentFast builds a document of fields in the order of its (unique) schema keys; ok is false otherwise.
func documentFast(fields []rawField, sch *schema) (*types.Document, bool) {
	if len(fields) != len(sch.Keys) {
		return nil, false
	}

	d := types.MakeDocument(len(fields))

	for i, f := range fields {
		if f.key != sch.Keys[i] {
			return nil, false
		}

		v, ok := valueFast(f.raw, sch.Properties[f.key])
		if !ok {
			return nil, false
		}

		d.Set(f.key, v)
	}

	return d, true
}

// valueFast is unmarshalSingleValue for one value; ok is false where that would fail.
func valueFast(raw []byte, sch *elem) (any, bool) {
	if bytes.Equal(raw, []byte("null")) {
		return types.Null, true
	}

	if sch == nil {
		return nil, false
	}

	switch sch.Type {
	case elemTypeObject:
		fields, ok := scanObject(raw)
		if !ok {
			return nil, false
		}

		// An empty object is an empty document whatever its schema says, as in documentType.UnmarshalJSONWithSchema.
		if len(fields) == 0 {
			return new(types.Document), true
		}

		if sch.Schema == nil {
			return nil, false
		}

		return documentFast(fields, sch.Schema)

	case elemTypeArray:
		items, ok := scanArray(raw)
		if !ok || len(items) != len(sch.Items) {
			return nil, false
		}

		a := types.MakeArray(len(items))

		for i, item := range items {
			v, ok := valueFast(item, sch.Items[i])
			if !ok {
				return nil, false
			}

			a.Append(v)
		}

		return a, true

	case elemTypeString:
		return stringFast(raw)

	case elemTypeBool:
		switch string(raw) {
		case "true":
			return true, true
		case "false":
			return false, true
		}

		return nil, false

	case elemTypeDouble:
		if !isJSONNumber(raw) {
			return nil, false
		}

		f, err := strconv.ParseFloat(string(raw), 64)
		if err != nil {
			return nil, false
		}

		return f, true

	case elemTypeInt:
		i, ok := integerFast(raw, 32)
		return int32(i), ok

	case elemTypeLong:
		i, ok := integerFast(raw, 64)
		return i, ok

	case elemTypeDate:
		i, ok := integerFast(raw, 64)
		return time.UnixMilli(i), ok

	case elemTypeTimestamp:
		if !isDigits(raw) {
			return nil, false
		}

		u, err := strconv.ParseUint(string(raw), 10, 64)

		return types.Timestamp(u), err == nil

	case elemTypeBinData, elemTypeObjectID, elemTypeRegex, elemTypeNull:
		// Rare in documents: decoded as before.
		v, err := unmarshalSingleValue(raw, sch)
		return v, err == nil
	}

	return nil, false
}

// stringFast decodes a JSON string as encoding/json does, escapes included; ok is false for text that is not
// valid UTF-8 (encoding/json replaces its bytes, left to it) and for anything that is not a JSON string.
func stringFast(raw []byte) (any, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return nil, false
	}

	s := raw[1 : len(raw)-1]
	if !utf8.Valid(s) {
		return nil, false
	}

	i := 0
	for i < len(s) && s[i] != '\\' && s[i] != '"' && s[i] >= 0x20 {
		i++
	}

	if i == len(s) {
		return string(s), true
	}

	buf := make([]byte, 0, len(s))
	buf = append(buf, s[:i]...)

	for i < len(s) {
		c := s[i]

		switch {
		case c == '"' || c < 0x20:
			return nil, false
		case c != '\\':
			buf = append(buf, c)
			i++

			continue
		case i+1 >= len(s):
			return nil, false
		}

		switch s[i+1] {
		case '"', '\\', '/':
			buf = append(buf, s[i+1])
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r := escapedRune(s[i:])
			if r < 0 {
				return nil, false
			}

			i += 6

			// A surrogate pair, or the replacement character for half of one, as encoding/json decodes them.
			if utf16.IsSurrogate(r) {
				if dec := utf16.DecodeRune(r, escapedRune(s[i:])); dec != unicode.ReplacementChar {
					i += 6
					buf = utf8.AppendRune(buf, dec)

					continue
				}

				r = unicode.ReplacementChar
			}

			buf = utf8.AppendRune(buf, r)

			continue
		default:
			return nil, false
		}

		i += 2
	}

	return string(buf), true
}

// escapedRune is the rune of a \uXXXX escape at the start of s, or -1.
func escapedRune(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}

	var r rune

	for _, c := range s[2:6] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}

		r = r*16 + rune(c)
	}

	return r
}

// integerFast parses a JSON integer that fits in bits (encoding/json refuses a fraction or an exponent for an
// integer type).
func integerFast(raw []byte, bits int) (int64, bool) {
	digits := raw
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}

	if !isDigits(digits) {
		return 0, false
	}

	i, err := strconv.ParseInt(string(raw), 10, bits)

	return i, err == nil
}

// isDigits is true for a JSON number's integer part without sign: 0, or digits not starting with 0.
func isDigits(b []byte) bool {
	if len(b) == 0 || (b[0] == '0' && len(b) > 1) {
		return false
	}

	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}

	return true
}

// isJSONNumber is true for text of JSON's number grammar (strconv.ParseFloat takes more: "Inf", hex, "_").
func isJSONNumber(b []byte) bool {
	i := 0
	if i < len(b) && b[i] == '-' {
		i++
	}

	start := i
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}

	if !isDigits(b[start:i]) {
		return false
	}

	if i < len(b) && b[i] == '.' {
		i++
		n := i

		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}

		if i == n {
			return false
		}
	}

	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}

		n := i

		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}

		if i == n {
			return false
		}
	}

	return i == len(b)
}

// schemaCache holds the schemas decoded so far by their JSON text; decoded schemas are never changed.
var schemaCache = struct {
	sync.RWMutex
	m map[string]*schema
}{m: map[string]*schema{}}

// maxCachedSchemas bounds the cache (cleared when full): collections of many document shapes decode theirs again.
const maxCachedSchemas = 4096

// cachedSchema is the schema of that text, decoded as Unmarshal decodes it; nil when it does not decode, or when
// some document in it has a key twice (Unmarshal's map would merge them, the fast path does not).
func cachedSchema(raw []byte) *schema {
	schemaCache.RLock()
	sch, ok := schemaCache.m[string(raw)]
	schemaCache.RUnlock()

	if ok {
		return sch
	}

	sch = new(schema)

	r := bytes.NewReader(raw)
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()

	if err := dec.Decode(sch); err != nil || checkConsumed(dec, r) != nil || !uniqueKeys(sch) {
		sch = nil
	}

	schemaCache.Lock()
	if len(schemaCache.m) >= maxCachedSchemas {
		schemaCache.m = map[string]*schema{}
	}
	schemaCache.m[string(raw)] = sch
	schemaCache.Unlock()

	return sch
}

// uniqueKeys is true when no document of the schema, at any depth, lists a key twice.
func uniqueKeys(sch *schema) bool {
	seen := make(map[string]struct{}, len(sch.Keys))

	for _, k := range sch.Keys {
		if _, dup := seen[k]; dup {
			return false
		}

		seen[k] = struct{}{}
	}

	for _, e := range sch.Properties {
		if !uniqueKeysElem(e) {
			return false
		}
	}

	return true
}

func uniqueKeysElem(e *elem) bool {
	if e == nil {
		return true
	}

	if e.Schema != nil && !uniqueKeys(e.Schema) {
		return false
	}

	for _, item := range e.Items {
		if !uniqueKeysElem(item) {
			return false
		}
	}

	return true
}

// scanObject splits a JSON object (the whole of data, whitespace around allowed) into its members; ok is false
// for anything else, and for a key with escapes.
func scanObject(data []byte) ([]rawField, bool) {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return nil, false
	}

	var fields []rawField

	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return fields, skipSpace(data, i+1) == len(data)
	}

	for {
		if i >= len(data) || data[i] != '"' {
			return nil, false
		}

		end := stringEnd(data, i)
		if end < 0 || bytes.IndexByte(data[i+1:end-1], '\\') >= 0 {
			return nil, false
		}

		key := data[i+1 : end-1]

		i = skipSpace(data, end)
		if i >= len(data) || data[i] != ':' {
			return nil, false
		}

		i = skipSpace(data, i+1)

		valueEnd := valueEnd(data, i)
		if valueEnd < 0 {
			return nil, false
		}

		fields = append(fields, rawField{key: string(key), raw: data[i:valueEnd]})

		i = skipSpace(data, valueEnd)
		if i >= len(data) {
			return nil, false
		}

		switch data[i] {
		case ',':
			i = skipSpace(data, i+1)
		case '}':
			return fields, skipSpace(data, i+1) == len(data)
		default:
			return nil, false
		}
	}
}

// scanArray splits a JSON array (the whole of data) into its items' texts; ok is false for anything else.
func scanArray(data []byte) ([][]byte, bool) {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '[' {
		return nil, false
	}

	var items [][]byte

	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == ']' {
		return items, skipSpace(data, i+1) == len(data)
	}

	for {
		end := valueEnd(data, i)
		if end < 0 {
			return nil, false
		}

		items = append(items, data[i:end])

		i = skipSpace(data, end)
		if i >= len(data) {
			return nil, false
		}

		switch data[i] {
		case ',':
			i = skipSpace(data, i+1)
		case ']':
			return items, skipSpace(data, i+1) == len(data)
		default:
			return nil, false
		}
	}
}

// valueEnd is the index just past the JSON value starting at i, or -1. Nested objects and arrays are only
// delimited here; their members are checked when they are decoded.
func valueEnd(data []byte, i int) int {
	if i >= len(data) {
		return -1
	}

	switch data[i] {
	case '"':
		return stringEnd(data, i)

	case '{', '[':
		depth := 0

		for j := i; j < len(data); j++ {
			switch data[j] {
			case '"':
				end := stringEnd(data, j)
				if end < 0 {
					return -1
				}

				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}

		return -1

	default:
		// a number, true, false or null: up to the next delimiter (its text is checked when it is decoded)
		j := i
		for j < len(data) {
			switch data[j] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return j
			}
			j++
		}

		return j
	}
}

// stringEnd is the index just past the JSON string starting at i (at its quote), or -1.
func stringEnd(data []byte, i int) int {
	for j := i + 1; j < len(data); j++ {
		switch data[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}

	return -1
}

func skipSpace(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}

	return i
}
