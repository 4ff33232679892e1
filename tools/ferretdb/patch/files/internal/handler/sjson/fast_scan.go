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
	"strconv"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// The JSON text scanning of unmarshalFast: members of objects and arrays found without decoding them, and
// strings and numbers read as encoding/json reads them.

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
