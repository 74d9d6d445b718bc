package world

// Internals the external tests (package world_test) check.

var Layout = layout

var SpacingOf = spacingOf

func (w *World) CellGUID(i int) string { return w.cellGUID(i) }
