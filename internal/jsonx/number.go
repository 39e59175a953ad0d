package jsonx

import (
	"encoding/json"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// MaxExponent bounds the exponents SplitNumber reads: past it, a number is
// not taken apart (whether 1e2000000000 is integral, or equal to
// 10e1999999999, is not worth a gigabyte of digits to anyone, and a hostile
// output could ask for it).
const MaxExponent = 1_000_000_000

// SplitNumber splits valid JSON number text t into value = ±digits ×
// 10^exp, digits as written (leading and trailing zeros kept). It is false
// when the exponent is beyond ±MaxExponent or unreadable. It reads the text
// exactly: no float64 rounding, so integers past 2^53 and numbers past the
// range of a double are taken apart like any other.
func SplitNumber(t string) (neg bool, digits string, exp int, ok bool) {
	neg = strings.HasPrefix(t, "-")
	t = strings.TrimPrefix(t, "-")
	mant := t
	if i := strings.IndexAny(t, "eE"); i >= 0 {
		mant = t[:i]
		e, err := strconv.Atoi(t[i+1:])
		if err != nil || e > MaxExponent || e < -MaxExponent {
			return false, "", 0, false
		}
		exp = e
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	return neg, intPart + frac, exp - len(frac), true
}

// Integral reports whether JSON number text t has no fractional part
// ("4.0" and "1e3" are integral, "1.5" and "1e-1" not). ok is false when
// SplitNumber cannot take t apart.
func Integral(t string) (integral, ok bool) {
	_, digits, exp, ok := SplitNumber(t)
	if !ok {
		return false, false
	}
	if exp >= 0 {
		return true, true
	}
	cut := max(len(digits)+exp, 0)
	return strings.Trim(digits[cut:], "0") == "", true
}

// canonNumber writes JSON number text t as sign, significant digits and
// exponent, so that numbers of equal value have equal text; false when t is
// not a JSON number or SplitNumber cannot take it apart.
func canonNumber(t string) (string, bool) {
	if !isNumberText(t) {
		return "", false
	}
	neg, digits, exp, ok := SplitNumber(t)
	if !ok {
		return "", false
	}
	trimmed := strings.TrimLeft(digits, "0")
	if trimmed == "" {
		return "0", true // -0 is 0
	}
	end := len(strings.TrimRight(trimmed, "0"))
	exp += len(trimmed) - end
	sign := ""
	if neg {
		sign = "-"
	}
	return sign + trimmed[:end] + "e" + strconv.Itoa(exp), true
}

// isNumberText reports whether t is a number as the JSON grammar writes it
// (RFC 8259 section 6): -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
func isNumberText(t string) bool {
	i := 0
	if i < len(t) && t[i] == '-' {
		i++
	}
	switch {
	case i < len(t) && t[i] == '0':
		i++
	case i < len(t) && t[i] >= '1' && t[i] <= '9':
		for i < len(t) && isDigit(t[i]) {
			i++
		}
	default:
		return false
	}
	if i < len(t) && t[i] == '.' {
		i++
		if i == len(t) || !isDigit(t[i]) {
			return false
		}
		for i < len(t) && isDigit(t[i]) {
			i++
		}
	}
	if i < len(t) && (t[i] == 'e' || t[i] == 'E') {
		i++
		if i < len(t) && (t[i] == '+' || t[i] == '-') {
			i++
		}
		if i == len(t) || !isDigit(t[i]) {
			return false
		}
		for i < len(t) && isDigit(t[i]) {
			i++
		}
	}
	return i == len(t)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// numberText is the JSON number text of a decoded number: a json.Number as
// written, a Go float or integer in its shortest form. False for anything
// else, and for a float that is not finite (JSON has no NaN or Infinity).
func numberText(v any) (string, bool) {
	switch x := v.(type) {
	case json.Number:
		return string(x), true
	case float64:
		return floatText(x, 64)
	case float32:
		return floatText(float64(x), 32)
	case int:
		return strconv.FormatInt(int64(x), 10), true
	case int8:
		return strconv.FormatInt(int64(x), 10), true
	case int16:
		return strconv.FormatInt(int64(x), 10), true
	case int32:
		return strconv.FormatInt(int64(x), 10), true
	case int64:
		return strconv.FormatInt(x, 10), true
	case uint:
		return strconv.FormatUint(uint64(x), 10), true
	case uint8:
		return strconv.FormatUint(uint64(x), 10), true
	case uint16:
		return strconv.FormatUint(uint64(x), 10), true
	case uint32:
		return strconv.FormatUint(uint64(x), 10), true
	case uint64:
		return strconv.FormatUint(x, 10), true
	}
	return "", false
}

func floatText(f float64, bits int) (string, bool) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return "", false
	}
	return strconv.FormatFloat(f, 'g', -1, bits), true
}

// Rat reads a decoded number exactly: a json.Number as the rational its
// text denotes, a float64 as the rational it holds. Nil for anything else,
// for a float that is not finite, and for a json.Number that math/big
// refuses (an exponent in the millions).
func Rat(v any) *big.Rat {
	switch n := v.(type) {
	case json.Number:
		r, ok := new(big.Rat).SetString(string(n))
		if !ok {
			return nil
		}
		return r
	case float64:
		return new(big.Rat).SetFloat64(n) // nil when not finite
	}
	return nil
}
