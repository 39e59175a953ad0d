package handlers

// MergePatch applies patch to target as RFC 7386 (JSON Merge Patch)
// defines, on documents decoded with encoding/json: an object patch sets
// each of its members in a copy of target (recursively for objects), a
// null member removes the member, and any other patch replaces target
// whole. target is never modified. It is the algorithm of the RFC's
// section 2, written against our decoded documents rather than through a
// library that works on bytes, which would cost an encode and a decode of
// both documents on every merge.
func MergePatch(target, patch any) any {
	p, ok := patch.(map[string]any)
	if !ok {
		return patch
	}
	t, _ := target.(map[string]any)
	out := make(map[string]any, len(t)+len(p))
	for k, v := range t {
		out[k] = v
	}
	for k, v := range p {
		if v == nil {
			delete(out, k)
			continue
		}
		out[k] = MergePatch(out[k], v)
	}
	return out
}
