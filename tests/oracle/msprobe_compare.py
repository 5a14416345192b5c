#!/usr/bin/env python3
"""Reference oracle for msprobe 26.0.0 `compare` (PyTorch dump.json, statistics and md5 modes).

usage: msprobe_compare.py TARGET_DUMP_JSON GOLDEN_DUMP_JSON [--stack STACK_JSON]

Writes to stdout the compare_result CSV that `msprobe compare -tp TARGET -gp GOLDEN`
would write.  TARGET is msprobe's "NPU" side, GOLDEN its "Bench" side.

Written from shared/reference/msprobe-compare.md (cited below as "§n").  Standard
library only.  Outcomes other than a CSV:
  - tensor-mode dumps (task "tensor"): message on stderr, exit status 3 (not covered);
  - msprobe would abort (bad characters, bad shape/requires_grad types, inconsistent
    tasks, ...): one line "ABORT: <msprobe's message>" on stdout, exit status 1;
  - msprobe would write no file (no rows to compare): one line "NO RESULT: <message>"
    on stdout, exit status 0;
  - usage or unreadable input: message on stderr, exit status 2.
"""

import csv
import json
import math
import os
import re
import sys
import zlib

# --------------------------------------------------------------------------------------
# Constants (§4.1, §7)
# --------------------------------------------------------------------------------------

N_A = 'N/A'
NAN_TEXT = 'Nan'            # CompareConst.NAN: how NaN statistics and NaN rules print
MAX_DEPTH = 400             # §1.5 recursion limit

HEAD_PREFIX = ['NPU Name', 'Bench Name', 'NPU Dtype', 'Bench Dtype', 'NPU Tensor Shape',
               'Bench Tensor Shape', 'NPU Requires_grad', 'Bench Requires_grad']
HEAD_DIFF = ['Max diff', 'Min diff', 'Mean diff', 'L2norm diff',
             'MaxRelativeErr', 'MinRelativeErr', 'MeanRelativeErr', 'NormRelativeErr']
HEAD_NPU_STATS = ['NPU max', 'NPU min', 'NPU mean', 'NPU l2norm']
HEAD_BENCH_STATS = ['Bench max', 'Bench min', 'Bench mean', 'Bench l2norm']
HEAD_MD5 = ['NPU MD5', 'BENCH MD5']
HEAD_TAIL = ['Requires_grad Consistent', 'Result', 'Err_message']
HEAD_STACK = 'NPU_Stack_Info'

STAT_KEYS = ['Max', 'Min', 'Mean', 'Norm']

MSG_INF_NAN = 'error: There is nan/inf/-inf in the maximum or minimum value of NPU.'
MSG_REL_ERR = 'error: The NormRelativeErr of output is greater than 0.5.'
MSG_REQ_GRAD = 'error: The Required_Grad of NPU and Bench are inconsistent'
MSG_PARAMS = 'error: The scalar parameters of NPU and Bench are inconsistent.'
MSG_DTYPE = 'error: The dtype of NPU and Bench are inconsistent.'
MSG_SHAPE = 'error: The shape of NPU and Bench are inconsistent.'
MSG_REL_WARN = 'warning: The norm relative error of output is 10 times that of input.'
MSG_CRC_ERR = 'error: The CRC-32 value of NPU differs from that of the bench.'
MSG_CRC_WARN = 'warning: The parameter of NPU does not match the bench.'

ALL_IGNORE = {'empty', 'empty_like', 'numpy', 'to', '__setitem__', 'empty_with_format',
              'new_empty_strided', 'new_empty', 'empty_strided'}
INPUT_IGNORE = {'_reduce_scatter_base', '_all_gather_base', 'all_to_all_single',
                'batch_isend_irecv'}

DTYPE_MATCH_GROUPS = [{'torch.float16', 'torch.float32', 'torch.bfloat16'},
                      {'Float16', 'Float32', 'BFloat16'}]

# §4.2: strings that msprobe refuses (formula injection guard)
SPECIAL_PATTERN = re.compile('^[\uff0b\uff0d\uff1d\uff05\uff20+\\-=%@]|;[\uff0b\uff0d\uff1d\uff05\uff20+\\-=%@]')

LEVELS = {'pass': 0, 'warning': 1, 'error': 2}


class Abort(Exception):
    """msprobe stops with this message and writes no CSV."""


class NoResult(Exception):
    """msprobe ends without writing a result file."""


class NotCovered(Exception):
    """A path of msprobe this oracle does not implement (tensor mode, MindSpore)."""


class InputError(Exception):
    """An input file cannot be read or is not JSON (usage trouble, exit status 2)."""


# --------------------------------------------------------------------------------------
# Small helpers
# --------------------------------------------------------------------------------------

def is_int(v):
    """A JSON integer (Python int, bools excluded): §4.2 column inference."""
    return type(v) is int


def is_float(v):
    """A JSON float (1.0 stays a float, NaN/Infinity included): §4.2 column inference."""
    return type(v) is float


def is_num(v):
    """Python int or float, bools excluded (pandas numeric column inference)."""
    return type(v) in (int, float)


def crc32_hex(text):
    """§1.4 note: zlib CRC-32 of the UTF-8 bytes of str(value), 8 lowercase hex digits."""
    return '%08x' % (zlib.crc32(str(text).encode()) & 0xffffffff)


def check_special(value, message):
    """§4.2: msprobe's parse-time check (check_op_str_pattern_valid)."""
    if isinstance(value, str) and SPECIAL_PATTERN.search(value):
        raise Abort(message)


def np_shape(value):
    """§1.4 slice row: numpy shape of np.array(value) as a tuple (ragged lists fail)."""
    if isinstance(value, list):
        if not value:
            return (0,)
        subs = [np_shape(x) for x in value]
        if any(s != subs[0] for s in subs):
            raise Abort('slice value is a ragged nested list (numpy cannot build the array)')
        return (len(value),) + subs[0]
    return ()


POW10 = [float('1e%d' % k) for k in range(309)]
ASCII_SPACE = ' \t\n\v\f\r'
INF_WORDS = {'inf': math.inf, '-inf': -math.inf, '+inf': math.inf, 'infinity': math.inf,
             '-infinity': -math.inf, '+infinity': math.inf}


def precise_xstrtod(s):
    """pandas' precise_xstrtod (parser/tokenizer.c), which to_numeric uses for strings.
    It is NOT correctly rounded: up to 17 significant digits are accumulated in a
    double and then scaled by a power of ten, so '0.49929186701774597' parses to
    0.4992918670177459.  Returns (value, maybe_int) or None when the text is not a
    complete number."""
    p, n = 0, len(s)
    while p < n and s[p] in ASCII_SPACE:
        p += 1
    negative = p < n and s[p] == '-'
    if p < n and s[p] in '+-':
        p += 1
    number, exponent, digits, decimals, maybe_int = 0.0, 0, 0, 0, True
    while p < n and '0' <= s[p] <= '9':
        if digits < 17:
            number = number * 10.0 + (ord(s[p]) - 48)
            digits += 1
        else:
            exponent += 1
        p += 1
    if p < n and s[p] == '.':
        maybe_int = False
        p += 1
        while p < n and digits < 17 and '0' <= s[p] <= '9':
            number = number * 10.0 + (ord(s[p]) - 48)
            p, digits, decimals = p + 1, digits + 1, decimals + 1
        if digits >= 17:
            while p < n and '0' <= s[p] <= '9':
                p += 1
        exponent -= decimals
    if digits == 0:
        return None
    if negative:
        number = -number
    if p < n and s[p] in 'eE':
        maybe_int = False
        p += 1
        exp_negative = p < n and s[p] == '-'
        if p < n and s[p] in '+-':
            p += 1
        exp_digits, e = 0, 0
        while exp_digits < 17 and p < n and '0' <= s[p] <= '9':
            e = e * 10 + (ord(s[p]) - 48)
            exp_digits, p = exp_digits + 1, p + 1
        exponent += -e if exp_negative else e
        if exp_digits == 0:
            p -= 1
    if exponent > 308:
        return None                                   # ERANGE
    if exponent > 0:
        number *= POW10[exponent]
    elif exponent < -308:
        number = 0.0 if exponent < -616 else number / POW10[-308 - exponent] / POW10[308]
    else:
        number /= POW10[-exponent]
    if math.isinf(number):
        return None
    while p < n and s[p] in ASCII_SPACE:
        p += 1
    if p != n:
        return None
    return number, maybe_int


INT64_MIN, INT64_MAX = -2 ** 63, 2 ** 63 - 1


def parse_numeric_text(text):
    """pandas.to_numeric on one string (lib.maybe_convert_numeric + floatify).
    Returns None when the text does not parse (or is NaN), else (as_float, as_int):
    as_float is what a float64 result holds (precise_xstrtod's value, so '-0' gives
    -0.0), as_int the integer an int64 result holds, or None when the text is not an
    integer in int64 range."""
    if text == '':
        return None
    parsed = precise_xstrtod(text)
    if parsed is None:
        word = INF_WORDS.get(text.lower())
        return None if word is None else (word, None)
    value, maybe_int = parsed
    as_int = int(text) if maybe_int else None
    if as_int is not None and not INT64_MIN <= as_int <= INT64_MAX:
        as_int = None
    return value, as_int


def to_numeric(value):
    """Does pandas.to_numeric(value, errors='coerce') give a number (not NaN)?"""
    if isinstance(value, bool):
        return True
    if is_num(value):
        return not (is_float(value) and math.isnan(value))
    if isinstance(value, str):
        return parse_numeric_text(value) is not None
    return False


# --------------------------------------------------------------------------------------
# §1.4 / §1.5: leaves and rows
# --------------------------------------------------------------------------------------

def new_row(name, state):
    """The default item: what a JSON null element yields (§1.4 last-but-one line)."""
    return {'name': name, 'state': state, 'dtype': None, 'shape': None,
            'stats': [None, None, None, None], 'md5': None, 'req_grad': None}


def is_leaf(obj):
    """§1.4: an object is a leaf if it has key `type` whose value is a string."""
    return 'type' in obj and isinstance(obj['type'], str)


def is_p2pop(obj):
    """§1.4: P2POp wrapper, recognised before the leaf test."""
    return obj.get('class_type') == 'torch.distributed.P2POp'


def leaf_row(leaf, name, state):
    """§1.4 table: dtype, shape, statistics, md5 and requires_grad of one leaf."""
    item = {k: (str(v) if isinstance(v, bool) else v) for k, v in leaf.items()}
    data_name = leaf.get('data_name') if leaf.get('data_name') else '-1'
    row = new_row(data_name.rsplit('.', 1)[0] if data_name != '-1' else name, state)
    row['req_grad'] = item.get('requires_grad')
    row['dtype'] = item.get('dtype')
    row['shape'] = item.get('shape')
    row['stats'] = [item.get(k) for k in STAT_KEYS]
    row['md5'] = item.get('md5')
    if not item.get('dtype'):
        special_leaf(row, leaf, item, name)
    if not row['md5']:
        row['md5'] = crc32_hex(leaf.get('value', ''))
    return row


def special_leaf(row, leaf, item, name):
    """§1.4 rows for leaves without a dtype, in msprobe's order of tests."""
    typ = item.get('type')
    value = leaf.get('value')
    if typ == 'torch.Size':
        row['dtype'], row['shape'] = leaf.get('type'), str(value)
    elif typ == 'slice':
        row['dtype'], row['shape'] = leaf.get('type'), str(np_shape(value))
    elif typ == 'ellipsis':
        row['dtype'], row['shape'], row['stats'] = leaf.get('type'), '[]', [value] * 4
    elif name.split('.')[-1] in ('src', 'dst', 'group_src', 'group_dst'):
        row['dtype'], row['shape'], row['stats'] = leaf.get('type'), '[]', [str(value)] * 4
        row['md5'] = str(value)
    elif typ == 'torch.ProcessGroup':
        ranks = str(leaf.get('group_ranks'))
        row['dtype'], row['shape'], row['stats'], row['md5'] = leaf.get('type'), '[]', [ranks] * 4, ranks
    else:
        row['dtype'], row['shape'], row['stats'] = str(type(value)), '[]', [value] * 4


def parse_item(data, name, state, depth=0):
    """§1.5: flatten one argument structure into rows (op_item_parse)."""
    if depth > MAX_DEPTH:
        raise Abort('parse of api/module of %s exceeds the recursion limit.' % name)
    if data is None:
        return [new_row(name, state)]
    if not data:                      # empty list / object (also 0, '', false): no row
        return []
    rows = []
    if isinstance(data, list):
        no_index = 'parameters_grad' in name.split('.')
        for i, sub in enumerate(data):
            rows.extend(parse_item(sub, name if no_index else '%s.%d' % (name, i), state, depth + 1))
    elif isinstance(data, dict):
        if is_p2pop(data):
            tensor = data.get('tensor')
            return [leaf_row(tensor, name, state) if isinstance(tensor, dict) else new_row(name, state)]
        if is_leaf(data):
            return [leaf_row(data, name, state)]
        for key, sub in data.items():
            rows.extend(parse_item(sub, '%s.%s' % (name, key), state, depth + 1))
    return rows


IO_KEYS = [('input_args', '.input', 'input'), ('input_kwargs', '.input', 'input'),
           ('input', '.input', 'input'), ('output', '.output', 'output'),
           ('parameters', '.parameters', 'parameters')]


def read_entry(entry, entry_name):
    """§1.3/§1.5: all rows of one entry, reordered inputs, parameters, outputs, parameters_grad."""
    parts = entry_name.split('.')
    if parts[-1] == 'debug':
        rows = parse_item(entry, entry_name, 'debug')
    elif parts[-1] == 'parameters_grad' or (len(parts) >= 2 and parts[-2] == 'parameters_grad'):
        rows = parse_item(entry, entry_name, 'parameters_grad')
    else:
        rows = []
        if isinstance(entry, dict):
            for key, suffix, state in IO_KEYS:
                if key in entry:
                    rows.extend(parse_item(entry[key], entry_name + suffix, state))
    order = {'parameters': 1, 'output': 2, 'parameters_grad': 3}
    return sorted(rows, key=lambda r: order.get(r['state'], 0))   # stable


# --------------------------------------------------------------------------------------
# §4.2: msprobe's parse-time content checks (check_dump_json_str, check_stack_json_str)
# --------------------------------------------------------------------------------------

def check_entry_strings(entry, entry_name):
    """§4.2: strings, shapes and requires_grad inside input(_args), input_kwargs, output."""
    if not isinstance(entry, dict):
        return
    inputs = entry.get('input_args') if entry.get('input_args') else entry.get('input')
    for arg in (inputs, entry.get('input_kwargs'), entry.get('output')):
        if not arg:
            continue
        if isinstance(arg, dict):
            check_key_values(arg, entry_name, 0)
        else:
            for element in arg:
                if element:
                    check_key_values(element, entry_name, 0)


def check_key_values(obj, entry_name, depth):
    """§4.2 (check_json_key_value): recurse into lists and objects; a non-object value
    under key "shape" must be a list, under "requires_grad" a bool, and no string may
    start with + - = % @ (or hold ; followed by one)."""
    if depth > MAX_DEPTH:
        return
    if isinstance(obj, list):
        for item in obj:
            check_key_values(item, entry_name, depth + 1)
    elif isinstance(obj, dict):
        for key, value in obj.items():
            if isinstance(value, dict):
                check_key_values(value, entry_name, depth + 1)
            elif key == 'shape' and not isinstance(value, list):
                raise Abort('shape of input or output of %s is not list or tuple, please check!' % entry_name)
            elif key == 'requires_grad' and not isinstance(value, bool):
                raise Abort('requires_grad of input or output of %s is not bool, please check!' % entry_name)
            else:
                check_special(value, 'data info of %s contains special characters, please check!' % entry_name)


def check_stack_value(stack, entry_name):
    """§1.7: a stack value must be a list; its strings pass the special-character check."""
    if not isinstance(stack, list):
        raise Abort("Expected stack_info to be a list, but got %s for '%s'" % (type(stack).__name__, entry_name))
    for line in stack:
        check_special(line, 'stack info of %s contains special characters, please check!' % entry_name)


# --------------------------------------------------------------------------------------
# §1.6 / §3.1: entry-name decomposition and compare keys
# --------------------------------------------------------------------------------------

def split_entry_name(name):
    """§1.6: (base, call_direction, direction); base '' means the entry is skipped."""
    parts = name.split('.')
    last = parts[-1]
    second_last = parts[-2] if len(parts) >= 2 else ''
    if 'parameters_grad' in (last, second_last):
        return ('.'.join(parts[:-1]) if len(parts) > 1 else '', 'parameters_grad', 'parameters_grad')
    for direction in ('forward', 'backward'):
        if direction in (last, second_last):
            return ('.'.join(parts[:-2]) if len(parts) > 2 else '', second_last + '.' + last, direction)
    return ('', '', '')


def compare_key(row, entry_name, base, call_direction, direction, backward_order):
    """§3.1: row name, except backward rows: numeric part of call_direction -> backward order."""
    if direction != 'backward':
        return row['name']
    head, tail = call_direction.rsplit('.', 1)
    changed = False
    if head.isdigit():
        head, changed = str(backward_order), True
    if tail.isdigit():
        tail, changed = str(backward_order), True
    if not changed:
        return row['name']
    return base + '.' + head + '.' + tail + row['name'].replace(entry_name, '')


# --------------------------------------------------------------------------------------
# §1: one dump.json -> ordered rows
# --------------------------------------------------------------------------------------

def parse_dump(dump, stack_dict):
    """§1.2-§1.6: all rows of one dump in output order, with entry, key and stack."""
    rows = []
    forward_count, backward_count = {}, {}
    for entry_name, entry in dump['data'].items():
        check_special(entry_name, 'api name contains special characters, please check!')
        check_entry_strings(entry, entry_name)
        entry_rows = read_entry(entry, entry_name)
        stack = None
        if stack_dict is not None:
            stack = stack_dict.get(entry_name)
            if stack is not None:
                check_stack_value(stack, entry_name)
        base, call_direction, direction = split_entry_name(entry_name)
        if not base:
            continue                                   # §1.2: silently skipped
        backward_order = backward_count.get(base, 0)
        if direction == 'forward':
            forward_count[base] = forward_count.get(base, 0) + 1
        if direction == 'backward':
            backward_count[base] = backward_order + 1
        for i, row in enumerate(entry_rows):
            row['entry'] = entry_name
            row['key'] = compare_key(row, entry_name, base, call_direction, direction, backward_order)
            row['stack'] = stack if i == 0 else None
            row['stats'] = [summary_value(v) for v in row['stats']]
            row['dtype'] = str(row['dtype'])           # astype(str): None -> 'None'
            row['shape'] = str(row['shape'])
            rows.append(row)
    return rows


def summary_value(value):
    """§1.4/§4.2: None -> 'None'; anything whose text is 'nan' (any case) -> 'Nan'."""
    if value is None:
        return 'None'
    if isinstance(value, (list, dict)):
        raise Abort('list or object statistic values are not supported (msprobe cannot tabulate them)')
    if str(value).lower() == 'nan':
        return NAN_TEXT
    return value


# --------------------------------------------------------------------------------------
# §1.1 / §2: loading, validation, mode detection, stack.json
# --------------------------------------------------------------------------------------

def load_json(path):
    """Python json (accepts NaN/Infinity; duplicate keys: last value, first position)."""
    try:
        with open(path, encoding='utf-8') as f:
            return json.load(f)
    except (OSError, ValueError) as err:
        raise InputError('cannot read %s: %s' % (path, err)) from None


def check_dump(dump, side):
    """§1.1: task and data must be present; data must be an object."""
    if not isinstance(dump, dict):
        raise Abort('Json file content is not a dictionary!')
    if not dump.get('task'):
        raise Abort('Task for %s is empty, please check.' % side)
    if 'data' not in dump:
        raise Abort("Missing 'data' in dump.json, please check dump.json of %s." % side)
    if not isinstance(dump['data'], dict):
        raise Abort("Invalid type for 'data': expected a dict. Please check dump.json of %s." % side)


def md5_in(container):
    """Python's `'md5' in x`: key test for objects, element test for lists, substring
    test for strings; msprobe crashes (TypeError) on a number."""
    if isinstance(container, (dict, list, str)):
        return 'md5' in container
    raise Abort("TypeError: argument of type '%s' is not iterable (msprobe md5_find crashes)"
                % type(container).__name__)


def md5_find(data):
    """§2: does any entry carry an md5 in a truthy first-level list element or in a
    non-empty object value (tested in JSON order, first hit wins)?"""
    for entry in data.values():
        if not isinstance(entry, dict):
            continue
        for value in entry.values():
            if isinstance(value, list):
                for element in value:
                    if element and md5_in(element):
                        return True
            if isinstance(value, bool):
                continue
            if value and md5_in(value):
                return True
    return False


def detect_mode(npu, bench):
    """§2: 'summary' (statistics) or 'md5'; tensor mode is not covered."""
    if npu['task'] != bench['task']:
        raise Abort('Please check the dump task is consistent.')
    if npu['task'] == 'tensor':
        raise NotCovered('tensor mode not covered')
    if npu['task'] != 'statistics':
        raise Abort('Compare applies only to task is tensor or statistics')
    npu_md5, bench_md5 = md5_find(npu['data']), md5_find(bench['data'])
    if npu_md5 != bench_md5:
        raise Abort('Please check the dump task is consistent, '
                    'dump mode of npu and bench should both be statistics or md5.')
    return 'md5' if npu_md5 else 'summary'


def check_framework(npu, bench):
    """§0: only the PyTorch path is covered."""
    npu_fw = npu.get('framework', 'pytorch')
    bench_fw = bench.get('framework', 'pytorch')
    if npu_fw in ('mindspore', 'mindtorch'):
        raise NotCovered('MindSpore compare path not covered')
    if npu_fw != 'pytorch' or bench_fw != 'pytorch':
        raise Abort('unsupported framework pair: %s vs %s' % (npu_fw, bench_fw))


def load_stack(path):
    """§1.7: old format {entry: [lines]} or new format {"0": [[entries], [lines]], ...}."""
    stack = load_json(path)
    if not isinstance(stack, dict):
        raise Abort('The format of the stack.json is incorrect, the outermost layer of '
                    'stack.json should be a dict type.')
    if not stack.get('0'):
        return stack
    result = {}
    for info in stack.values():
        if not isinstance(info, list) or len(info) != 2:
            continue
        names, lines = info
        if not isinstance(names, list):
            continue
        for name in names:
            result[name] = lines
    return result


# --------------------------------------------------------------------------------------
# §3: matching
# --------------------------------------------------------------------------------------

def dtype_gate(npu_dtype, bench_dtype):
    """§3.1: equal dtypes, or both in one of the float groups."""
    if npu_dtype == bench_dtype:
        return True
    return any(npu_dtype in g and bench_dtype in g for g in DTYPE_MATCH_GROUPS)


def match_rows(npu_rows, bench_rows):
    """§3.1/§3.3: outer join on the key, cross product on duplicates, NPU order,
    golden-only rows dropped; a pair failing the dtype gate becomes unmatched."""
    by_key = {}
    for row in bench_rows:
        by_key.setdefault(row['key'], []).append(row)
    pairs = []
    for row in npu_rows:
        matches = by_key.get(row['key'])
        if not matches:
            pairs.append((row, None))
            continue
        for bench in matches:
            pairs.append((row, bench if dtype_gate(row['dtype'], bench['dtype']) else None))
    return pairs


# --------------------------------------------------------------------------------------
# §3.2 / §4.2: result table cells
# --------------------------------------------------------------------------------------

def text_or_na(value):
    """§3.2: fillna('N/A') after the merge (missing requires_grad, md5 of a null slot)."""
    return N_A if value is None else value


def build_table(pairs, mode):
    """One dict of cells per output row, before statistics inference and diffs."""
    table = []
    for npu, bench in pairs:
        r = {'entry': npu['entry'],
             'NPU Name': npu['name'], 'NPU Dtype': npu['dtype'], 'NPU Tensor Shape': npu['shape'],
             'NPU Requires_grad': text_or_na(npu['req_grad']),
             'stack': npu['stack']}
        if bench is None:
            r.update({'Bench Name': N_A, 'Bench Dtype': N_A, 'Bench Tensor Shape': N_A,
                      'Bench Requires_grad': N_A})
        else:
            r.update({'Bench Name': bench['name'], 'Bench Dtype': bench['dtype'],
                      'Bench Tensor Shape': bench['shape'],
                      'Bench Requires_grad': text_or_na(bench['req_grad'])})
        r['Requires_grad Consistent'] = r['NPU Requires_grad'] == r['Bench Requires_grad']
        if mode == 'md5':
            r['NPU MD5'] = text_or_na(npu['md5'])
            r['BENCH MD5'] = N_A if bench is None else text_or_na(bench['md5'])
        else:
            for j in range(4):
                r[HEAD_NPU_STATS[j]] = npu['stats'][j]
                r[HEAD_BENCH_STATS[j]] = N_A if bench is None else bench['stats'][j]
        table.append(r)
    return table


def column_kind(values):
    """pandas' inference of one column built from Python objects: int, float or object."""
    if values and all(is_int(v) for v in values):
        return 'int'
    if values and all(is_num(v) for v in values):
        return 'float'
    return 'object'


def infer_stats_block(table, heads):
    """§4.2/§9.22: the 4 stats columns of one side are built as one 2-D block.
    A column of ints and floats becomes float64 (its ints print as floats); if all 4
    columns are numeric and any is float, the block is float64 (every int prints as a
    float); otherwise int columns and mixed columns keep each cell's JSON form."""
    kinds = [column_kind([r[h] for r in table]) for h in heads]
    all_numeric = all(k != 'object' for k in kinds)
    any_float = any(k == 'float' for k in kinds)
    for h, kind in zip(heads, kinds):
        if kind == 'float' or (all_numeric and any_float):
            for r in table:
                r[h] = float(r[h])


def reinfer_unmatched(table, heads):
    """§3.3/§9.22: fillna('N/A') on the unmatched subset re-infers each column over that
    subset alone: ints and floats only (at least one float) -> ints print as floats."""
    subset = [r for r in table if r['Bench Name'] == N_A]
    for h in heads:
        values = [r[h] for r in subset]
        if values and all(is_num(v) for v in values) and any(is_float(v) for v in values):
            for r in subset:
                r[h] = float(r[h])


# --------------------------------------------------------------------------------------
# §5: statistics diffs
# --------------------------------------------------------------------------------------

def classify(value):
    """§5 step 2: NAN, INF, NEG_INF, NUM, DEVICE, NA or OTHER (first hit wins)."""
    text = str(value)
    low = text.lower()
    if (is_float(value) and math.isnan(value)) or low == 'nan':
        return 'NAN'
    if (is_float(value) and value == math.inf) or low == 'inf':
        return 'INF'
    if (is_float(value) and value == -math.inf) or low == '-inf':
        return 'NEG_INF'
    if not isinstance(value, bool) and low not in ('true', 'false') and to_numeric(value):
        return 'NUM'
    if 'npu' in low or 'cpu' in low or 'cuda' in low:
        return 'DEVICE'
    if text == N_A:
        return 'NA'
    return 'OTHER'


FINITE_CLASSES = ('NUM', 'NAN', 'INF', 'NEG_INF')


def static_rule(npu_class, bench_class):
    """§5 step 3 for every pair except NUM x NUM: the (diff, rel) texts."""
    pair = (npu_class, bench_class)
    if 'NA' in pair:
        return N_A
    if 'NAN' in pair and npu_class in FINITE_CLASSES and bench_class in FINITE_CLASSES:
        return NAN_TEXT
    if pair in (('INF', 'NUM'), ('INF', 'NEG_INF'), ('NUM', 'NEG_INF')):
        return 'inf'
    if pair in (('NEG_INF', 'NUM'), ('NEG_INF', 'INF'), ('NUM', 'INF')):
        return '-inf'
    if pair == ('DEVICE', 'DEVICE'):
        return N_A
    if 'DEVICE' in pair or 'OTHER' in pair:
        return 'Diff'
    return N_A                         # INF x INF, NEG_INF x NEG_INF (unequal texts)


def column_numbers(values):
    """pandas.to_numeric(column.astype(str)): per cell the number (None for NaN) and
    whether the column is int64 (every cell an integer text in int64 range)."""
    parsed = [parse_numeric_text(str(v)) for v in values]
    if all(p is not None and p[1] is not None for p in parsed):
        return [p[1] for p in parsed], True
    return [None if p is None else p[0] for p in parsed], False


def stats_diffs(table):
    """§5: fill the 8 diff columns of every row."""
    names = [('Max diff', 'MaxRelativeErr'), ('Min diff', 'MinRelativeErr'),
             ('Mean diff', 'MeanRelativeErr'), ('L2norm diff', 'NormRelativeErr')]
    for j, (diff_name, rel_name) in enumerate(names):
        npu_col = [r[HEAD_NPU_STATS[j]] for r in table]
        bench_col = [r[HEAD_BENCH_STATS[j]] for r in table]
        npu_nums, npu_int = column_numbers(npu_col)
        bench_nums, bench_int = column_numbers(bench_col)
        for i, r in enumerate(table):
            npu, bench = npu_col[i], bench_col[i]
            if str(npu) == str(bench):
                r[diff_name], r[rel_name] = '0', '0'
                continue
            nc, bc = classify(npu), classify(bench)
            if (nc, bc) == ('NUM', 'NUM'):
                r[diff_name], r[rel_name] = num_num(npu_nums[i], bench_nums[i], npu_int and bench_int)
            else:
                r[diff_name] = r[rel_name] = static_rule(nc, bc)


def num_num(npu, bench, as_int):
    """§5 NUM x NUM: diff = npu - bench; rel = |diff / bench * 100| as repr + '%', 'inf' for bench 0."""
    diff = npu - bench if as_int else float(npu) - float(bench)
    if bench == 0:
        return diff, 'inf'
    rel = abs(float(diff) / float(bench) * 100)
    return diff, repr(rel) + '%'


# --------------------------------------------------------------------------------------
# §7: Result and Err_message
# --------------------------------------------------------------------------------------

def str2float(text):
    """§7: '12.5%' -> 0.125, 'inf' -> inf, 'Nan' -> nan; anything unparsable -> 0."""
    try:
        return float(text.strip('%')) / 100
    except (ValueError, AttributeError):
        return 0


def is_inf_or_nan(value):
    """§7 checker 1: float nan/inf, or text inf/-inf/nan (trimmed, any case)."""
    if isinstance(value, float):
        return math.isnan(value) or math.isinf(value)
    if isinstance(value, str):
        return value.strip().lower() in ('inf', '-inf', 'nan')
    return False


def extreme(rows, head, want_min):
    """§7 "min/max over inputs (outputs)": numbers and x% texts count; default 1.0 / 0.0."""
    result = 1.0 if want_min else 0.0
    for r in rows:
        value = r[head]
        if value is None or value in (NAN_TEXT, N_A):
            continue
        if isinstance(value, str) and value.endswith('%'):
            value = str2float(value)
        if isinstance(value, str):
            continue
        result = min(result, value) if want_min else max(result, value)
    return result


def raise_level(r, level, message):
    """§7: a checker raises a row's level (error > warning > pass) and appends its message."""
    if LEVELS[level] > LEVELS[r['level']]:
        r['level'] = level
    r['msgs'].append(message)


def bench_missing(r):
    """§7: checkers skip rows whose Bench Name is empty or N/A (unmatched)."""
    return not r['Bench Name'] or r['Bench Name'] == N_A


def check_inf_nan(rows):
    """§7 checker 1."""
    for r in rows:
        if is_inf_or_nan(r['Bench max']) or is_inf_or_nan(r['Bench min']):
            continue
        if is_inf_or_nan(r['NPU max']) or is_inf_or_nan(r['NPU min']):
            raise_level(r, 'error', MSG_INF_NAN)


def check_relative_err(inputs, outputs):
    """§7 checker 3: inputs' max NormRelativeErr < 0.1 and an output's > 0.5."""
    if abs(extreme(inputs, 'NormRelativeErr', False)) < 0.1:
        for r in outputs:
            if abs(str2float(r['NormRelativeErr'])) > 0.5:
                raise_level(r, 'error', MSG_REL_ERR)


def check_requires_grad(rows):
    """§7 checker 4."""
    for r in rows:
        if bench_missing(r) or not r['NPU Requires_grad'] or not r['Bench Requires_grad']:
            continue
        if r['NPU Requires_grad'] != r['Bench Requires_grad']:
            raise_level(r, 'error', MSG_REQ_GRAD)


def check_parameters(inputs):
    """§7 checker 5: matched Python-scalar inputs whose max values differ (1 == 1.0)."""
    for r in inputs:
        if bench_missing(r) or not r['NPU Dtype'] or not r['Bench Dtype']:
            continue
        if 'class' not in r['NPU Dtype'] or 'class' not in r['Bench Dtype']:
            continue
        if r['NPU Tensor Shape'] != '[]':
            continue
        if r['NPU max'] != r['Bench max']:
            raise_level(r, 'error', MSG_PARAMS)


def check_dtype(rows):
    """§7 checker 6 (skipped when the Bench Name contains qkv or gate_up)."""
    for r in rows:
        if bench_missing(r) or r['NPU Name'] == N_A:
            continue
        if 'qkv' in r['Bench Name'] or 'gate_up' in r['Bench Name']:
            continue
        if not r['NPU Dtype'] or not r['Bench Dtype']:
            continue
        if r['NPU Dtype'] != r['Bench Dtype']:
            raise_level(r, 'error', MSG_DTYPE)


def check_shape(rows):
    """§7 checker 7."""
    for r in rows:
        if bench_missing(r):
            continue
        if r['NPU Tensor Shape'] != r['Bench Tensor Shape']:
            raise_level(r, 'error', MSG_SHAPE)


def check_relative_warn(inputs, outputs):
    """§7 checker 9: warning on the first output row."""
    if not outputs:
        return
    i = abs(extreme(inputs, 'NormRelativeErr', False))
    o = abs(extreme(outputs, 'NormRelativeErr', False))
    if (i == 0 and o > 0.1) or (i != 0 and o / i > 10):
        raise_level(outputs[0], 'warning', MSG_REL_WARN)


def check_crc32(rows):
    """§7 checker 10 (md5 mode)."""
    for r in rows:
        npu, bench = r['NPU MD5'], r['BENCH MD5']
        if npu != bench:
            if npu in (N_A, NAN_TEXT, '') or bench in (N_A, NAN_TEXT, ''):
                raise_level(r, 'warning', MSG_CRC_WARN)
            else:
                raise_level(r, 'error', MSG_CRC_ERR)


def ignore_info(inputs):
    """§7: keyed on the 2nd dot-component of the first input row's NPU Name."""
    if not inputs:
        return 'none'
    parts = inputs[0]['NPU Name'].split('.')
    if len(parts) < 2:
        return 'none'
    if parts[1] in ALL_IGNORE:
        return 'all'
    if parts[1] in INPUT_IGNORE:
        return 'input'
    return 'none'


def judge_group(rows, mode):
    """§7: run the checkers of one entry group in msprobe's order."""
    inputs = [r for r in rows if '.output.' not in r['NPU Name']]
    outputs = [r for r in rows if '.output.' in r['NPU Name']]
    ignore = ignore_info(inputs)
    checked = [] if ignore == 'all' else outputs if ignore == 'input' else inputs + outputs
    if mode == 'md5':
        check_crc32(checked)
        return
    check_inf_nan(checked)
    if ignore == 'none':
        check_relative_err(inputs, outputs)
    check_requires_grad(checked)
    if ignore == 'none':
        check_parameters(inputs)
    check_dtype(checked)
    check_shape(checked)
    if ignore == 'none':
        check_relative_warn(inputs, outputs)


def judge(table, mode):
    """§7: Result and Err_message of every row, grouped by NPU entry."""
    groups = {}
    for r in table:
        r['level'], r['msgs'] = 'pass', []
        groups.setdefault(r['entry'], []).append(r)
    for rows in groups.values():
        judge_group(rows, mode)
    for r in table:
        r['Result'] = r['level']
        r['Err_message'] = json.dumps(r['msgs'])


# --------------------------------------------------------------------------------------
# §4.2 / §8: CSV
# --------------------------------------------------------------------------------------

def header_for(mode, stack_mode):
    """§4.1."""
    if mode == 'md5':
        head = HEAD_PREFIX + HEAD_MD5 + HEAD_TAIL
    else:
        head = HEAD_PREFIX + HEAD_DIFF + HEAD_NPU_STATS + HEAD_BENCH_STATS + HEAD_TAIL
    return head + [HEAD_STACK] if stack_mode else head


def soft_convert(table, head):
    """pandas re-inference of one column from its Python values: a column holding only
    ints and floats (no bool, no text) becomes float64, so its ints print as floats."""
    values = [r[head] for r in table]
    if all(is_num(v) for v in values) and any(is_float(v) for v in values):
        for r in table:
            r[head] = float(r[head])


def final_convert(table, heads):
    """§4.2/§9.21: the rule engine writes every column back from Python lists (a
    re-inference), then float +-inf becomes ' inf' / ' -inf' (DataFrame.replace, which
    soft-converts object columns once more)."""
    for h in heads:
        soft_convert(table, h)
        for r in table:
            v = r[h]
            if is_float(v) and math.isinf(v):
                r[h] = ' inf' if v > 0 else ' -inf'
        soft_convert(table, h)


def cell_text(value):
    """str() of a cell as pandas' to_csv writes it (floats: Python repr; NaN: empty)."""
    if is_float(value):
        return '' if math.isnan(value) else repr(value)
    return str(value)


def check_malicious(rows):
    """§4.2 check_df_malicious: refuse string cells that look like formulas."""
    for row in rows:
        for value in row:
            if not isinstance(value, str) or not SPECIAL_PATTERN.search(value):
                continue
            if all(parse_float(part) for part in value.split(';')):
                continue
            raise Abort('Malicious value [%s] not allowed to be written into the csv: '
                        'compare_result.csv.' % value)


def parse_float(text):
    """Python float() accepts the text (check_df_malicious lets numbers like -1.5 pass)."""
    try:
        float(text)
        return True
    except ValueError:
        return False


def write_csv(table, header, out):
    """§4.2: pandas to_csv(index=False): Python csv module, minimal quoting, LF."""
    rows = []
    for r in table:
        row = []
        for h in header:
            if h == HEAD_STACK:
                row.append(N_A if r['stack'] is None else r['stack'])
            else:
                row.append(r[h])
        rows.append(row)
    check_malicious([header] + rows)
    writer = csv.writer(out, lineterminator='\n')
    writer.writerow(header)
    for row in rows:
        writer.writerow([cell_text(v) for v in row])


# --------------------------------------------------------------------------------------
# Driver
# --------------------------------------------------------------------------------------

def compare(target_path, golden_path, stack_path):
    """The whole pipeline of §0 for one pair of dump.json files; returns (header, table)."""
    npu, bench = load_json(target_path), load_json(golden_path)
    check_dump(npu, 'npu')
    check_dump(bench, 'bench')
    check_framework(npu, bench)
    mode = detect_mode(npu, bench)
    if not npu['data'] or not bench['data']:
        raise NoResult('No valid data found. No compare result file generated. Please check input json.')
    stack_dict = load_stack(stack_path) if stack_path else None
    npu_rows = parse_dump(npu, stack_dict)
    bench_rows = parse_dump(bench, stack_dict)
    table = build_table(match_rows(npu_rows, bench_rows), mode)
    if not table:
        raise NoResult("Can`t match any op. No compare result file generated.")
    if mode == 'summary':
        infer_stats_block(table, HEAD_NPU_STATS)
        infer_stats_block(table, HEAD_BENCH_STATS)
        reinfer_unmatched(table, HEAD_NPU_STATS + HEAD_BENCH_STATS)
        stats_diffs(table)
    judge(table, mode)
    if mode == 'summary':
        final_convert(table, HEAD_DIFF + HEAD_NPU_STATS + HEAD_BENCH_STATS)
    return header_for(mode, stack_path is not None), table


def parse_args(argv):
    """TARGET GOLDEN [--stack STACK]; §1.7: stack.json next to TARGET is used by default."""
    args, stack = [], None
    i = 0
    while i < len(argv):
        if argv[i] == '--stack' and i + 1 < len(argv):
            stack = argv[i + 1]
            i += 2
        elif argv[i].startswith('--stack='):
            stack = argv[i][len('--stack='):]
            i += 1
        else:
            args.append(argv[i])
            i += 1
    if len(args) != 2:
        sys.stderr.write(__doc__.split('\n\n')[1] + '\n')
        sys.exit(2)
    if stack is None:
        candidate = os.path.join(os.path.dirname(args[0]), 'stack.json')
        stack = candidate if os.path.isfile(candidate) else None
    return args[0], args[1], stack


def main(argv):
    """Print the CSV, or ABORT / NO RESULT, and return the exit status (module docstring)."""
    target, golden, stack = parse_args(argv)
    try:
        header, table = compare(target, golden, stack)
        write_csv(table, header, sys.stdout)
    except Abort as err:
        sys.stdout.write('ABORT: %s\n' % err)
        return 1
    except NoResult as err:
        sys.stdout.write('NO RESULT: %s\n' % err)
        return 0
    except NotCovered as err:
        sys.stderr.write('msprobe_compare: %s\n' % err)
        return 3
    except InputError as err:
        sys.stderr.write('msprobe_compare: %s\n' % err)
        return 2
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
