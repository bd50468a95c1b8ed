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
