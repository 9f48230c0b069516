package proto

import (
	"reflect"
	"testing"
	"time"
)

// TestStateEqualEveryField changes each field of a state in turn (and of
// its permission request) and checks Equal says what reflect.DeepEqual
// says: a field added to State and left out of Equal fails here.
func TestStateEqualEveryField(t *testing.T) {
	base := State{Status: StatusRunning, Argv: []string{"sh"}, Started: time.Unix(1, 0),
		Permission: &Permission{Title: "run", Options: []PermissionOption{{ID: "a"}}}}
	if !base.Equal(base) {
		t.Fatal("a state is not Equal to itself")
	}
	cp := func(s State) State {
		c := s
		c.Argv = append([]string(nil), s.Argv...)
		p := *s.Permission
		p.Options = append([]PermissionOption(nil), s.Permission.Options...)
		c.Permission = &p
		return c
	}
	if !base.Equal(cp(base)) {
		t.Fatal("a copy of a state is not Equal to it")
	}
	rt := reflect.TypeOf(base)
	for i := range rt.NumField() {
		other := cp(base)
		f := reflect.ValueOf(&other).Elem().Field(i)
		if !changeValue(f) {
			t.Fatalf("field %s (%s): the test cannot change it", rt.Field(i).Name, f.Type())
		}
		if base.Equal(other) || reflect.DeepEqual(base, other) {
			t.Errorf("field %s changed: Equal = %v, DeepEqual = %v; want both false", rt.Field(i).Name, base.Equal(other), reflect.DeepEqual(base, other))
		}
	}
	pt := reflect.TypeOf(*base.Permission)
	for i := range pt.NumField() {
		other := cp(base)
		if !changeValue(reflect.ValueOf(other.Permission).Elem().Field(i)) {
			t.Fatalf("permission field %s: the test cannot change it", pt.Field(i).Name)
		}
		if base.Equal(other) {
			t.Errorf("permission field %s changed, and Equal holds", pt.Field(i).Name)
		}
	}
	// A nil list is not an empty one (State.Pending tells them apart).
	empty := cp(base)
	empty.PendingDirectories = []string{}
	if base.Equal(empty) {
		t.Error("nil and empty PendingDirectories are Equal")
	}
	noPerm := cp(base)
	noPerm.Permission = nil
	if base.Equal(noPerm) || noPerm.Equal(base) || !noPerm.Equal(noPerm) {
		t.Error("a nil permission request is compared wrongly")
	}
}

// changeValue sets v to a value other than the one it has; it reports
// false for a kind it does not know.
func changeValue(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.String:
		v.SetString(v.String() + "x")
	case reflect.Bool:
		v.SetBool(!v.Bool())
	case reflect.Int, reflect.Int64, reflect.Int32, reflect.Int8, reflect.Int16:
		v.SetInt(v.Int() + 1)
	case reflect.Uint, reflect.Uint64, reflect.Uint32, reflect.Uint8, reflect.Uint16:
		v.SetUint(v.Uint() + 1)
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.String {
			v.Set(reflect.Append(v, reflect.ValueOf("more")))
			return true
		}
		v.Set(reflect.Append(v, reflect.Zero(v.Type().Elem())))
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
			return true
		}
		v.Set(reflect.Zero(v.Type()))
	case reflect.Struct:
		if v.Type() == reflect.TypeOf(time.Time{}) {
			v.Set(reflect.ValueOf(v.Interface().(time.Time).Add(time.Second)))
			return true
		}
		return false
	default:
		return false
	}
	return true
}
