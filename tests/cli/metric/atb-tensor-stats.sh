# msprobe's Target/Golden Max, Min, Mean, Norm in ATB tensor mode, computed from the .bin files as
# torch on the CPU (msprobe-atb.md), on hand-written tensors whose cells are worked out by hand:
#   bf16 [1,2,3,4]: max 4.0, min 1.0, mean 2.5, norm sqrt(30) = 5.4772 rounded to bfloat16 (8 bits):
#     1.3693 * 4 -> 1 + 47/128 = 1.3671875 * 4 = 5.46875
#   bf16 [1,nan,3,4]: a NaN makes every cell N/A (max, min nan; mean and norm nan)
#   f16 [1,inf,-2,0.5]: max inf, min -2.0, mean inf, norm inf
#   float [1.5,-2.5,3]: max 3.0, min -2.5, mean float(2/3) = 0.6666666865348816,
#     norm sqrtf(17.5) = 4.183300018310547
#   int64 [3,5]: as float32: 5.0, 3.0, 4.0, sqrtf(34) = 5.830951690673828
#   bool [1,0,1]: max tensor(True) (any), min tensor(False) (all), mean and norm N/A
# The .bin payloads start at odd offsets (their headers' lengths), as ATB's do: read in place.
H='Device and PID,Execution Count,Op Name,Op Type,Op Id,Input/Output,Index,Dtype,Format,Shape,Max,Min,Mean,Norm,Tensor Path'
python3 - <<'PY'
import os, struct
# (file, ATB dtype code, dims, payload)
def bf16(x):
    return struct.pack("<f", x)[2:]
tensors = [
    ("intensor0.bin", 27, [4], b"".join(bf16(v) for v in (1, 2, 3, 4))),
    ("intensor1.bin", 27, [4], b"".join(bf16(v) for v in (1, float("nan"), 3, 4))),
    ("intensor2.bin", 1, [4], struct.pack("<4e", 1, float("inf"), -2, 0.5)),
    ("intensor3.bin", 0, [3], struct.pack("<3f", 1.5, -2.5, 3)),
    ("intensor4.bin", 9, [2], struct.pack("<2q", 3, 5)),
    ("intensor5.bin", 12, [3], bytes([1, 0, 1])),
]
for side, dev in (("t", "0_11"), ("g", "0_22")):
    d = "%s/atb_dump_data/data/%s/0/1_L/before" % (side, dev)
    os.makedirs(d)
    for name, code, dims, payload in tensors:
        head = ("$Version=1.0\n$Object.Count=1\n$Object.Length=%d\nformat=2\ndtype=%d\ndims=%s\n"
                "$Object.data=0,%d\n$End=1\n" % (len(payload), code, ",".join(map(str, dims)), len(payload)))
        with open(os.path.join(d, name), "wb") as f:
            f.write(head.encode() + payload)
PY
for side in t:0_11 g:0_22; do
	s=${side%%:*} dev=${side#*:}
	{
		echo "$H"
		i=0
		for dt in bf16:4 bf16:4 float16:4 float:3 int64:2 bool:3; do
			echo "$dev,0,L,L,1,input,$i,${dt%%:*},nd,${dt#*:},N/A,N/A,N/A,N/A,/x/atb_dump_data/data/$dev/0/1_L/before/intensor$i.bin"
			i=$((i + 1))
		done
	} > $s/atb_dump_data/data/$dev/0/statistic.csv
done
probe-flatten t | probe-match g | probe-metric --csv | cut -d, -f3,7- | sed -n '1p;2,$p' |
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i ~ /^(Data Name|Target|Golden)/) keep[i] = 1 }
		{ line = ""; for (i = 1; i <= NF; i++) if (keep[i]) line = line (line == "" ? "" : ",") $i; print line }'
