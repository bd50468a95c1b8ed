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
