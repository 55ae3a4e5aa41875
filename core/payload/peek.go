package payload

import "encoding/json"

// TopString returns the string value of key in the top-level object of data, read without
// parsing the rest: data may be truncated, nested beyond any bound or otherwise invalid
// after the member. It serves the answer to a payload that cannot be parsed, which still
// needs the event it was sent for. The first member named key counts, as with Doc.String;
// "" when there is none or its value is not a string.
func TopString(data []byte, key string) string {
	level, inString, escaped, start := 0, false, false, 0
	var last []byte // the last complete string token at level 1
	for i := 0; i < len(data); i++ {
		c := data[i]
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
				if level == 1 {
					last = data[start : i+1]
				}
			}
			continue
		}
		switch c {
		case '"':
			inString, start = true, i
		case '{', '[':
			level++
			last = nil
		case '}', ']':
			level--
			last = nil
		case ':':
			if level == 1 && last != nil && unquote(last) == key {
				return valueString(data[i+1:])
			}
			last = nil
		case ',':
			last = nil
		}
	}
	return ""
}

// valueString reads the JSON string that starts data (after white space), else "".
func valueString(data []byte) string {
	i := 0
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	if i == len(data) || data[i] != '"' {
		return ""
	}
	for j, escaped := i+1, false; j < len(data); j++ {
		switch {
		case escaped:
			escaped = false
		case data[j] == '\\':
			escaped = true
		case data[j] == '"':
			return unquote(data[i : j+1])
		}
	}
	return ""
}

func unquote(token []byte) string {
	var s string
	if json.Unmarshal(token, &s) != nil {
		return ""
	}
	return s
}
