# needle.json checked without the generator's say: for every precision and fault,
#   fp32: the first leaf, in execution order, whose record differs between target and golden is the
#     needle's leaf (so with scale and eps no tensor before the scalar differs);
#   bf16, fp16, fp32-kernels: the first target leaf that differs from the target of the same
#     options with --fault none is the needle's (what the fault changes beyond the precision's
#     rounding), but for softmax-fp16, whose calibration changes that layer's weights: there the
#     needle is the first target leaf with a non-finite element (Max or Min NaN or infinite), the
#     golden has none, and the softmax's input reaches above log(65504) = 11.09 in both runs.
# The scalar faults' values are printed, golden -> target.  Under fp16 the calibrated scores'
# float16 Norm overflows (msprobe computes it in float16) before the softmax: a non-finite
# statistic of finite elements, precision and not the needle.
# sanitizers: skip, it checks where the generator's faults land, with jq over probe-flatten's records; probe-flatten runs under the sanitizers in its own tests
first_diff() { paste -d '\n' "$1" "$2" | jq -r -n 'first([inputs | del(.dump)] | _nwise(2) | select(.[0] != .[1])) | .[1].name'; }
nonfinite() { jq -r 'select([.max, .min] | any(. == "nan" or . == "inf" or . == "-inf")) | .name' "$1"; }
for p in fp32 bf16 fp16 fp32-kernels; do
	if [ $p != fp32 ]; then
		probe-gendump --framework decoder --precision $p --fault none none-$p
		probe-flatten none-$p/target > t-none
	fi
	for f in scale eps softmax-fp16 weight kernel hook; do
		rm -rf run
		probe-gendump --framework decoder --precision $p --fault $f run
		leaf=$(jq -r .leaf run/needle.json)
		probe-flatten run/target > t
		[ $p = fp32 ] || [ $f = softmax-fp16 ] || [ $f = scale ] || [ $f = eps ] && probe-flatten run/golden > g
		if [ $p = fp32 ]; then
			found=$(first_diff g t) how="first leaf that differs from the golden"
		elif [ $f = softmax-fp16 ]; then
			found=$(nonfinite t | head -1) how="first non-finite element"
			[ -z "$(nonfinite g)" ] || echo "$p $f: the golden has non-finite elements"
		else
			found=$(first_diff t-none t) how="first leaf the fault changes"
		fi
		if [ "$found" = "$leaf" ]; then echo "$p $f: $how = needle $leaf"; else echo "$p $f: $how $found, needle $leaf"; fi
		case $f in
		scale | eps)
			echo "  value:" $(jq -r --arg l "$leaf" 'select(.name == $l) | .value' g t | tr '\n' ' ' | sed 's/ / -> /') ;;
		softmax-fp16)
			echo "  softmax input Max, golden and target:" $(jq -r 'select(.name == "Functional.softmax.1.forward.input.0") | .max' g t)
			n=$(jq -r .name t | grep -n -x -F "$leaf" | cut -d: -f1)
			head -n $((n - 1)) t | jq -r 'select([.max, .min, .mean, .norm] | any(type == "string"))
				| "  before it, a non-finite statistic: \(.name) max \(.max) norm \(.norm)"' | head -3 ;;
		esac
	done
done
