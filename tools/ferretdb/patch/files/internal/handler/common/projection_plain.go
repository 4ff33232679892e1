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

package common

import (
	"strings"

	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/must"
)

// plainInclusion is an inclusion projection of top-level fields only, each included with true (no paths, no
// positional `$`, no new values), worked out once for the documents of a query.
type plainInclusion struct {
	fields []string
	withID bool
}

// newPlainInclusion is the projection as a plainInclusion; nil for any other (validated) projection.
func newPlainInclusion(projection *types.Document, inclusion bool) *plainInclusion {
	if !inclusion {
		return nil
	}

	p := &plainInclusion{withID: true}

	for _, key := range projection.Keys() {
		value := must.NotFail(projection.Get(key))

		if key == "_id" {
			included, ok := value.(bool)
			if !ok {
				return nil
			}

			p.withID = included

			continue
		}

		if included, ok := value.(bool); !ok || !included || strings.ContainsAny(key, ".$") {
			return nil
		}

		p.fields = append(p.fields, key)
	}

	return p
}

// project is ProjectDocument for such a projection: the document's _id (unless left out), then the projected
// fields it has, in its own order, their values shared (ProjectDocument copies them out of a copy of the whole
// document, and copies the projected document for each field it adds). ok is false for a document whose
// projected fields hold a document, an array or binary data, which ProjectDocument then projects.
func (p *plainInclusion) project(doc *types.Document) (*types.Document, bool) {
	projected := types.MakeDocument(len(p.fields) + 1)
	projected.SetRecordID(doc.RecordID())

	if p.withID {
		projected.Set("_id", must.NotFail(doc.Get("_id")))
	}

	for _, key := range doc.Keys() {
		if key == "_id" || !p.includes(key) {
			continue
		}

		value := must.NotFail(doc.Get(key))

		switch value.(type) {
		case *types.Document, *types.Array, types.Binary:
			return nil, false
		}

		projected.Set(key, value)
	}

	return projected, true
}

func (p *plainInclusion) includes(key string) bool {
	for _, field := range p.fields {
		if field == key {
			return true
		}
	}

	return false
}
