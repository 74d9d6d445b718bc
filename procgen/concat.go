package procgen

import (
	"fmt"
	"reflect"
	"strings"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"
)

// The `..` operator, weighed before it allocates. gopher-lua joins a concatenation's operands in
// one allocation inside its OP_CONCAT instruction, where nothing can look first: `s = s .. s` in a
// loop passed the memory limit by the string it was making (the heap peaked near 2.5 × the limit)
// before the watchdog's next tick. So the sandbox compiles no OP_CONCAT: before compiling, every
// concatenation in the syntax tree (a chain `a .. b .. c` as one) becomes a call of a function
// that does what OP_CONCAT does — the same right-to-left joining of strings and numbers, the same
// __concat metamethods, the same error — after weighing the string it will make
// (memGuard.reserve). The call's function is a constant of the compiled code (bindConcat), not a
// global: a script can neither see nor replace it.

// concatName is the name the rewritten calls use until bindConcat resolves them; it is no Lua
// identifier, so no local variable of a script can shadow it.
const concatName = "\x00strata.concat"

// rewriteConcat replaces, in place, every concatenation below v (a parsed chunk) by a call of
// concatName with its operands.
func rewriteConcat(v reflect.Value) {
	switch v.Kind() {
	case reflect.Interface:
		if v.IsNil() {
			return
		}
		if c, ok := v.Interface().(*ast.StringConcatOpExpr); ok && v.CanSet() {
			call := concatCall(c)
			v.Set(reflect.ValueOf(ast.Expr(call)))
			rewriteConcat(reflect.ValueOf(call).Elem())
			return
		}
		rewriteConcat(v.Elem())
	case reflect.Pointer:
		if !v.IsNil() {
			rewriteConcat(v.Elem())
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			rewriteConcat(v.Field(i))
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			rewriteConcat(v.Index(i))
		}
	}
}

// concatCall is the call that replaces c: one call for the chain `a .. b .. c` (right
// associative, as OP_CONCAT takes it), each operand adjusted to one value as an operand is.
func concatCall(c *ast.StringConcatOpExpr) *ast.FuncCallExpr {
	args := []ast.Expr{c.Lhs}
	rhs := c.Rhs
	for {
		next, ok := rhs.(*ast.StringConcatOpExpr)
		if !ok {
			break
		}
		args = append(args, next.Lhs)
		rhs = next.Rhs
	}
	args = append(args, rhs)
	for _, a := range args {
		switch a := a.(type) {
		case *ast.FuncCallExpr:
			a.AdjustRet = true
		case *ast.Comma3Expr:
			a.AdjustRet = true
		}
	}
	fn := &ast.IdentExpr{Value: concatName}
	fn.SetLine(c.Line())
	fn.SetLastLine(c.LastLine())
	call := &ast.FuncCallExpr{Func: fn, Args: args}
	call.SetLine(c.Line())
	call.SetLastLine(c.LastLine())
	return call
}

// Opcodes and fields of gopher-lua's instructions (opcode.go): the opcode in the top 6 bits, Bx
// in the low 18.
const (
	opShift = 26
	opMaxBx = 1<<18 - 1
)

// bindConcat makes every read of concatName in proto and the functions it contains a load of fn,
// added as a constant. It fails when an OP_CONCAT is left (rewriteConcat missed one) or a
// function has no room for another constant.
func bindConcat(proto *lua.FunctionProto, fn *lua.LFunction) error {
	name := -1
	for k, c := range proto.Constants {
		if s, ok := c.(lua.LString); ok && string(s) == concatName {
			name = k
			break
		}
	}
	fnk := len(proto.Constants)
	for pc, inst := range proto.Code {
		op := int(inst >> opShift)
		switch {
		case op == lua.OP_CONCAT:
			return fmt.Errorf("line %d: a concatenation was left unweighed", lineAt(proto, pc))
		case op == lua.OP_GETGLOBAL && name >= 0 && int(inst&opMaxBx) == name:
			if fnk > opMaxBx {
				return fmt.Errorf("line %d: more than %d constants in one function", lineAt(proto, pc), opMaxBx)
			}
			if fnk == len(proto.Constants) {
				proto.Constants = append(proto.Constants, fn)
			}
			proto.Code[pc] = uint32(lua.OP_LOADK)<<opShift | inst&(1<<opShift-1)&^opMaxBx | uint32(fnk)
		}
	}
	for _, p := range proto.FunctionPrototypes {
		if err := bindConcat(p, fn); err != nil {
			return err
		}
	}
	return nil
}

func lineAt(proto *lua.FunctionProto, pc int) int {
	if pc < len(proto.DbgSourcePositions) {
		return proto.DbgSourcePositions[pc]
	}
	return 0
}

// concat is OP_CONCAT over its arguments (stringConcat in gopher-lua's vm.go): from the right, a
// run of strings and numbers is joined in one allocation, weighed first; any other pair goes
// through its __concat metamethod.
func concat(L *lua.LState, g *memGuard) int {
	i := L.GetTop()
	rhs := L.Get(i)
	for i--; i >= 1; {
		lhs := L.Get(i)
		if !lua.LVCanConvToString(lhs) || !lua.LVCanConvToString(rhs) {
			op := L.GetMetaField(lhs, "__concat")
			if op == lua.LNil {
				op = L.GetMetaField(rhs, "__concat")
			}
			if op.Type() != lua.LTFunction {
				L.RaiseError("cannot perform concat operation between %v and %v", lhs.Type().String(), rhs.Type().String())
			}
			L.Push(op)
			L.Push(lhs)
			L.Push(rhs)
			L.Call(2, 1)
			rhs = L.Get(-1)
			L.Pop(1)
			i--
			continue
		}
		last := lua.LVAsString(rhs)
		size := uint64(len(last))
		j := i
		for ; j >= 1 && lua.LVCanConvToString(L.Get(j)); j-- {
			size += uint64(len(lua.LVAsString(L.Get(j))))
		}
		g.reserve(L, size, "the .. operator")
		var b strings.Builder
		b.Grow(int(size))
		for k := j + 1; k <= i; k++ {
			b.WriteString(lua.LVAsString(L.Get(k)))
		}
		b.WriteString(last)
		rhs = lua.LString(b.String())
		i = j
	}
	L.Push(rhs)
	return 1
}
