// A comment naming %r#99999999999 is not a use.
func.func @f(%a: index) -> index attributes {note = "%r#99999999999"} {
  return %a : index
}
