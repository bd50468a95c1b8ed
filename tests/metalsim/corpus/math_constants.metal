// Metal's math constants: MAXFLOAT is finite (FLT_MAX), so a row masked entirely with -MAXFLOAT keeps finite
// differences (exp(-MAXFLOAT - -MAXFLOAT) = 1), as on a GPU; HUGE_VALF and INFINITY are +inf.
uint i = thread_position_in_grid.x;
float masked = -MAXFLOAT;
float row_max = max(masked, -MAXFLOAT);
out[8 * i + 0] = exp(masked - row_max);
out[8 * i + 1] = MAXFLOAT == FLT_MAX ? 1.0f : 0.0f;
out[8 * i + 2] = isinf(HUGE_VALF) && HUGE_VALF == INFINITY ? 1.0f : 0.0f;
out[8 * i + 3] = float(MAXHALF) + float(isinf(float(HUGE_VALH)) ? 1.0f : 0.0f);
out[8 * i + 4] = M_PI_2_F * 2.0f + M_PI_4_F * 4.0f;
out[8 * i + 5] = M_SQRT1_2_F * M_SQRT1_2_F + M_2_SQRTPI_F + M_2_PI_F + M_LOG10E_F;
out[8 * i + 6] = HALF_MIN + HALF_EPSILON + FLT_MIN + FLT_EPSILON;
out[8 * i + 7] = float(i);
