//! The precise forms: within 1 or 2 ulp (exp, exp2, log, log2, erf in software) or correctly
//! rounded (`sqrt.rn`, `rcp.rn`, `div.rn`), the same bits on every backend and the simulator.
//! Slower than the fast forms in [`super`] (a dozen instructions instead of one or two):
//! use them where an approximation's error would show, e.g. in a log-sum-exp's final `log`.

use super::{binary, hw, soft, unary, Real};

unary! {
    /// `e^x`, within 1 ulp (fdlibm's algorithm); overflow gives infinity, NaN stays NaN.
    exp => soft::exp;
    /// `2^x`, within 1 ulp.
    exp2 => soft::exp2;
    /// `ln(x)`, within 1 ulp; `log(0) = -inf`, negative gives NaN.
    log => soft::log;
    /// `log2(x)`, within 1 ulp.
    log2 => soft::log2;
    /// `erf(x)`, within 2 ulp.
    erf => soft::erf;
    /// `sqrt(x)`, correctly rounded: `sqrt.rn.f32`.
    sqrt => hw::sqrt_rn;
    /// `1/x`, correctly rounded: `rcp.rn.f32`.
    rcp => hw::rcp_rn;
}

binary! {
    /// `a / b`, correctly rounded: `div.rn.f32` (what `/` compiles to).
    div => hw::div_rn;
}
