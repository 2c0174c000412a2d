package qdranttest

// Filters, evaluated like Qdrant: must/should/must_not of keyword matches
// on string and list fields, along dotted paths; a filter on a key
// without a payload index is refused when the collection asks for that.

import (
	qc "github.com/qdrant/go-client/qdrant"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// unindexedKey returns the first field key in f that indexed lacks.
func unindexedKey(f *qc.Filter, indexed map[string]qc.PayloadSchemaType) (string, bool) {
	if f == nil {
		return "", false
	}
	for _, cs := range [][]*qc.Condition{f.GetMust(), f.GetShould(), f.GetMustNot()} {
		for _, c := range cs {
			if fc := c.GetField(); fc != nil {
				if _, ok := indexed[fc.GetKey()]; !ok {
					return fc.GetKey(), true
				}
			}
			if key, ok := unindexedKey(c.GetFilter(), indexed); ok {
				return key, true
			}
		}
	}
	return "", false
}

// matchFilter evaluates a filter like Qdrant: every must, at least one
// should (when any), no must_not.
func matchFilter(f *qc.Filter, p *Point) (bool, error) {
	if f == nil {
		return true, nil
	}
	for _, c := range f.GetMust() {
		ok, err := matchCondition(c, p)
		if err != nil || !ok {
			return false, err
		}
	}
	if len(f.GetShould()) > 0 {
		any := false
		for _, c := range f.GetShould() {
			ok, err := matchCondition(c, p)
			if err != nil {
				return false, err
			}
			any = any || ok
		}
		if !any {
			return false, nil
		}
	}
	for _, c := range f.GetMustNot() {
		ok, err := matchCondition(c, p)
		if err != nil || ok {
			return false, err
		}
	}
	return true, nil
}

func matchCondition(c *qc.Condition, p *Point) (bool, error) {
	switch k := c.GetConditionOneOf().(type) {
	case *qc.Condition_Filter:
		return matchFilter(k.Filter, p)
	case *qc.Condition_Field:
		return matchField(k.Field, p.Payload)
	case *qc.Condition_HasId:
		own := idKeyOf(*p)
		for _, id := range k.HasId.GetHasId() {
			if idKey(id) == own {
				return true, nil
			}
		}
		return false, nil
	}
	return false, status.Errorf(codes.InvalidArgument, "fake qdrant: unsupported condition %T", c.GetConditionOneOf())
}

func matchField(fc *qc.FieldCondition, p map[string]*qc.Value) (bool, error) {
	vals := valuesAt(p, fc.GetKey())
	m := fc.GetMatch()
	if m == nil {
		return false, status.Errorf(codes.InvalidArgument, "fake qdrant: only match conditions are supported (key %q)", fc.GetKey())
	}
	anyVal := func(pred func(*qc.Value) bool) bool {
		for _, v := range vals {
			if pred(v) {
				return true
			}
		}
		return false
	}
	switch mv := m.GetMatchValue().(type) {
	case *qc.Match_Keyword:
		return anyVal(func(v *qc.Value) bool { return v.GetStringValue() == mv.Keyword && isString(v) }), nil
	case *qc.Match_Keywords:
		set := map[string]bool{}
		for _, s := range mv.Keywords.GetStrings() {
			set[s] = true
		}
		return anyVal(func(v *qc.Value) bool { return isString(v) && set[v.GetStringValue()] }), nil
	case *qc.Match_ExceptKeywords:
		set := map[string]bool{}
		for _, s := range mv.ExceptKeywords.GetStrings() {
			set[s] = true
		}
		return anyVal(func(v *qc.Value) bool { return isString(v) && !set[v.GetStringValue()] }), nil
	case *qc.Match_Integer:
		return anyVal(func(v *qc.Value) bool {
			_, ok := v.GetKind().(*qc.Value_IntegerValue)
			return ok && v.GetIntegerValue() == mv.Integer
		}), nil
	case *qc.Match_Boolean:
		return anyVal(func(v *qc.Value) bool {
			_, ok := v.GetKind().(*qc.Value_BoolValue)
			return ok && v.GetBoolValue() == mv.Boolean
		}), nil
	}
	return false, status.Errorf(codes.InvalidArgument, "fake qdrant: unsupported match %T", m.GetMatchValue())
}

func isString(v *qc.Value) bool {
	_, ok := v.GetKind().(*qc.Value_StringValue)
	return ok
}

// valuesAt returns the values at a dotted path, lists flattened.
func valuesAt(p map[string]*qc.Value, path string) []*qc.Value {
	cur := []*qc.Value{qc.NewValueFromFields(p)}
	start := 0
	for i := 0; i <= len(path); i++ {
		if i < len(path) && path[i] != '.' {
			continue
		}
		seg := path[start:i]
		start = i + 1
		var next []*qc.Value
		for _, v := range cur {
			if f, ok := v.GetStructValue().GetFields()[seg]; ok {
				next = append(next, f)
			}
		}
		cur = next
	}
	var out []*qc.Value
	for _, v := range cur {
		if l := v.GetListValue(); l != nil {
			out = append(out, l.GetValues()...)
		} else {
			out = append(out, v)
		}
	}
	return out
}
