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
