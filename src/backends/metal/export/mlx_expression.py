# What the exported module's size expressions call (metal::python_expression): division and rounding with the task
# parser's IEEE results, so a size of 0 makes an expression infinite or NaN, as during the search, where Python would
# raise ZeroDivisionError or OverflowError. _int and _require then say which sizes the kernel cannot take.
def _divide(numerator, denominator):
    if denominator:
        return numerator / denominator
    if numerator == 0 or math.isnan(numerator):
        return math.nan
    return math.copysign(math.inf, numerator) * math.copysign(1.0, denominator)


def _floor(value):
    return math.floor(value) if math.isfinite(value) else value


def _ceil(value):
    return math.ceil(value) if math.isfinite(value) else value


# The task parser's bitwise functions: on integer values as C++'s operators on int64, NaN for any other operand.
def _bitwise(a, b, op):
    if all(isinstance(v, int) or (math.isfinite(v) and v == math.trunc(v) and abs(v) < 2.0 ** 63) for v in (a, b)):
        return float(op(int(a), int(b)))
    return math.nan


def _bitand(a, b):
    return _bitwise(a, b, lambda x, y: x & y)


def _bitor(a, b):
    return _bitwise(a, b, lambda x, y: x | y)


def _bitxor(a, b):
    return _bitwise(a, b, lambda x, y: x ^ y)


# The task parser's pick(i, v0, v1, ...): v_i, NaN for an index that is not an integer in range.
def _pick(index, *values):
    if math.isfinite(index) and index == math.trunc(index) and 0 <= index < len(values):
        return values[int(index)]
    return math.nan


# The task parser's bit counts (clz32, ctz64, popcount32, ...): of the value as C++ converts an integer to that width,
# NaN for a value that is not an integer of the signed or unsigned range, and for the leading or trailing zeros of 0.
def _bit_count(x, bits, count, defined_at_zero):
    top = 2.0 ** bits if bits == 32 else 2.0 ** 63
    if not (isinstance(x, int) or math.isfinite(x)) or x != math.trunc(x) or not (-(2.0 ** (bits - 1)) <= x < top):
        return math.nan
    value = int(x) % (1 << bits)
    if value == 0 and not defined_at_zero:
        return math.nan
    return float(count(value, bits))


def _clz32(x):
    return _bit_count(x, 32, lambda v, bits: bits - v.bit_length(), False)


def _clz64(x):
    return _bit_count(x, 64, lambda v, bits: bits - v.bit_length(), False)


def _ctz32(x):
    return _bit_count(x, 32, lambda v, bits: (v & -v).bit_length() - 1, False)


def _ctz64(x):
    return _bit_count(x, 64, lambda v, bits: (v & -v).bit_length() - 1, False)


def _popcount32(x):
    return _bit_count(x, 32, lambda v, bits: bin(v).count("1"), True)


def _popcount64(x):
    return _bit_count(x, 64, lambda v, bits: bin(v).count("1"), True)
