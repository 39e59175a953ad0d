package rules

import (
	"math"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/cost"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
	"cel.dev/cel-go/common/types/traits"
)

// sumOverload is the overload id of <list>.sum().
const sumOverload = "list_sum"

// sumFunction declares <list>.sum(): the sum of a list of numbers, an int
// while every element is an int (an overflow is an error), else a double;
// 0 for an empty list. CEL has no fold, and "total equals the sum of the
// items" is the rule teams ask for first.
func sumFunction() cel.EnvOption {
	return cel.Function("sum",
		cel.MemberOverload(sumOverload, []*cel.Type{cel.ListType(cel.DynType)}, cel.DynType,
			cel.UnaryBinding(sum)))
}

func sum(v ref.Val) ref.Val {
	list, ok := v.(traits.Lister)
	if !ok {
		return types.NoSuchOverloadErr()
	}
	var (
		isum    int64
		fsum    float64
		isFloat bool
	)
	it := list.Iterator()
	for it.HasNext() == types.True {
		switch n := it.Next().(type) {
		case types.Int:
			if isFloat {
				fsum += float64(n)
				continue
			}
			if (n > 0 && isum > math.MaxInt64-int64(n)) || (n < 0 && isum < math.MinInt64-int64(n)) {
				return types.NewErr("sum(): integer overflow")
			}
			isum += int64(n)
		case types.Uint:
			if isFloat {
				fsum += float64(n)
				continue
			}
			if uint64(n) > math.MaxInt64 || isum > math.MaxInt64-int64(n) {
				return types.NewErr("sum(): integer overflow")
			}
			isum += int64(n)
		case types.Double:
			if !isFloat {
				isFloat, fsum = true, float64(isum)
			}
			fsum += float64(n)
		default:
			return types.NewErr("sum(): element of type %s is not a number", n.Type().(ref.Type).TypeName())
		}
	}
	if isFloat {
		return types.Double(fsum)
	}
	return types.Int(isum)
}

// estimator is what cost estimation and tracking know beyond CEL's
// standard library: every list, map and string reached from the output is
// taken to hold up to size elements (bytes), and sum() walks its list once.
type estimator struct{ size uint64 }

var (
	_ cost.Estimator           = estimator{}
	_ cost.ActualCostEstimator = estimator{}
)

// EstimateSize implements cost.Estimator.
func (e estimator) EstimateSize(cost.AstNode) *cost.SizeEstimate {
	return &cost.SizeEstimate{Min: 0, Max: e.size}
}

// EstimateCallCost implements cost.Estimator.
func (e estimator) EstimateCallCost(_, overloadID string, target *cost.AstNode, _ []cost.AstNode) *cost.CallEstimate {
	if overloadID != sumOverload || target == nil {
		return nil
	}
	sz := cost.EstimateSize(e, *target)
	return &cost.CallEstimate{CostEstimate: cost.CostEstimate{Min: 1 + sz.Min, Max: 1 + sz.Max}}
}

// CallCost implements cost.ActualCostEstimator.
func (estimator) CallCost(_, overloadID string, args []ref.Val, _ ref.Val) *uint64 {
	if overloadID != sumOverload || len(args) == 0 {
		return nil
	}
	c := 1 + cost.ActualSize(args[0])
	return &c
}
