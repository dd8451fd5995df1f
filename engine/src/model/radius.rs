//! One corner radius as Chromium serializes its computed value: a length (`8px`), a percentage
//! of the border box's side (`50%`), or a math function mixing both that only resolves once the
//! box's size is known (`calc(10% + 4px)`, `min(10px, 6.66667%)`,
//! `max(0px, min(8px, -999900% + 7.75922e+06px))`).
//!
//! Computed values hold no relative units other than `%` (`em`, `vw` are already px), and
//! Chromium simplifies sums inside `calc()`, so every term is linear in the side's length; a
//! `min()`, `max()` or `clamp()` of such terms is kept as one clamp of three linear terms,
//! which covers the forms pages use (a percentage with a floor or a ceiling, the "round only
//! when narrower than the viewport" idiom). Anything else does not resolve, see
//! [`Radius::parse`].

/// `px + frac · side`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Linear {
    px: f32,
    frac: f32,
}

impl Linear {
    const ZERO: Linear = Linear { px: 0.0, frac: 0.0 };
    const NEG_INF: Linear = Linear {
        px: f32::NEG_INFINITY,
        frac: 0.0,
    };
    const INF: Linear = Linear {
        px: f32::INFINITY,
        frac: 0.0,
    };

    fn of(self, side: f64) -> f64 {
        // An infinite end (an open side of a `min()` / `max()`) takes no fraction.
        if self.px.is_infinite() {
            return f64::from(self.px);
        }
        f64::from(self.px) + f64::from(self.frac) * side
    }

    fn add(self, o: Linear) -> Linear {
        Linear {
            px: self.px + o.px,
            frac: self.frac + o.frac,
        }
    }

    fn scale(self, k: f32) -> Linear {
        if self.px.is_infinite() {
            return if k >= 0.0 { self } else { self.flip_inf() };
        }
        Linear {
            px: self.px * k,
            frac: self.frac * k,
        }
    }

    fn flip_inf(self) -> Linear {
        if self.px > 0.0 {
            Linear::NEG_INF
        } else {
            Linear::INF
        }
    }

    /// Not above `o` for any side length (sides are never negative).
    fn below(self, o: Linear) -> bool {
        if self.px == f32::NEG_INFINITY || o.px == f32::INFINITY {
            return true;
        }
        if self.px.is_infinite() || o.px.is_infinite() {
            return false;
        }
        self.px <= o.px && self.frac <= o.frac
    }

    /// Not above zero for any side length.
    fn never_positive(self) -> bool {
        self.below(Linear::ZERO)
    }
}

/// `max(lo, min(val, hi))` (CSS `clamp()`, where the floor wins over the ceiling); a plain
/// length has open ends.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Radius {
    lo: Linear,
    val: Linear,
    hi: Linear,
}

impl Radius {
    pub(crate) const ZERO: Radius = Radius::linear(Linear::ZERO);

    const fn linear(val: Linear) -> Radius {
        Radius {
            lo: Linear::NEG_INF,
            val,
            hi: Linear::INF,
        }
    }

    /// `v` CSS px.
    pub(crate) fn px(v: f64) -> Radius {
        Radius::linear(Linear {
            px: finite(v),
            frac: 0.0,
        })
    }

    /// `f` times the side (`0.5` for `50%`).
    pub(crate) fn fraction(f: f64) -> Radius {
        Radius::linear(Linear {
            px: 0.0,
            frac: finite(f),
        })
    }

    fn as_linear(self) -> Option<Linear> {
        (self.lo == Linear::NEG_INF && self.hi == Linear::INF).then_some(self.val)
    }

    /// The radius in CSS px for a side of `side` px (negative ones are squared off by the
    /// caller).
    pub(crate) fn of(self, side: f64) -> f64 {
        let v = self.val.of(side).min(self.hi.of(side));
        let v = v.max(self.lo.of(side));
        if v.is_finite() {
            v
        } else {
            0.0
        }
    }

    /// Square for every box size (a cheap test: a radius it cannot tell about is not square).
    pub(crate) fn is_square(self) -> bool {
        self.lo.never_positive() && (self.val.never_positive() || self.hi.never_positive())
    }

    /// One computed radius (one token of the shorthand, paren groups included). `None` when it
    /// does not resolve: an unknown unit or function, or math this type cannot hold exactly
    /// (a sum of two clamps, a `min()` of three terms none of which bounds the others).
    pub(crate) fn parse(token: &str) -> Option<Radius> {
        let mut p = Parser {
            toks: lex(token)?,
            at: 0,
        };
        let v = p.sum()?;
        if p.at != p.toks.len() {
            return None;
        }
        match v {
            Val::Num(0.0) => Some(Radius::ZERO),
            Val::Num(_) => None,
            Val::Len(r) => Some(r),
        }
    }
}

/// `v` as a finite `f32`: an infinite length stands for an open end of a clamp, so a huge one
/// (`1e300px`, meant as "fully round") stays huge instead.
fn finite(v: f64) -> f32 {
    v.clamp(-1e30, 1e30) as f32
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Tok {
    /// A number, with its unit: `0` none, `1` px, `2` %.
    Num(f64, u8),
    Open,
    Close,
    Comma,
    Plus,
    Minus,
    Star,
    Slash,
    /// `calc(`, `min(`, `max(`, `clamp(`: `0`..`3`.
    Func(u8),
}

fn lex(s: &str) -> Option<Vec<Tok>> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        // A sign starts a number only where an operand is expected (`-5px`, `min(-1px, 2%)`);
        // elsewhere it is an operator (`10% - 2px`).
        let operand_expected = matches!(
            out.last(),
            None | Some(
                Tok::Open
                    | Tok::Comma
                    | Tok::Plus
                    | Tok::Minus
                    | Tok::Star
                    | Tok::Slash
                    | Tok::Func(_)
            )
        );
        let starts_number = c.is_ascii_digit()
            || c == b'.'
            || (operand_expected
                && (c == b'+' || c == b'-')
                && b.get(i + 1)
                    .is_some_and(|d| d.is_ascii_digit() || *d == b'.'));
        if starts_number {
            let start = i;
            i += 1;
            while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'.') {
                i += 1;
            }
            // An exponent (`7.75922e+06px`), not the start of a unit.
            if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
                let mut j = i + 1;
                if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
                    j += 1;
                }
                if j < b.len() && b[j].is_ascii_digit() {
                    i = j;
                    while i < b.len() && b[i].is_ascii_digit() {
                        i += 1;
                    }
                }
            }
            let v: f64 = s[start..i].parse().ok().filter(|v: &f64| v.is_finite())?;
            let unit = if s[i..].starts_with("px") {
                i += 2;
                1
            } else if s[i..].starts_with('%') {
                i += 1;
                2
            } else {
                0
            };
            // `em`, `deg` and the like: not a length this model knows.
            if b.get(i).is_some_and(|c| c.is_ascii_alphabetic()) {
                return None;
            }
            out.push(Tok::Num(v, unit));
            continue;
        }
        if c.is_ascii_alphabetic() {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'-') {
                i += 1;
            }
            if b.get(i) != Some(&b'(') {
                return None;
            }
            let f = match &s[start..i] {
                "calc" => 0,
                "min" => 1,
                "max" => 2,
                "clamp" => 3,
                _ => return None,
            };
            i += 1;
            out.push(Tok::Func(f));
            continue;
        }
        out.push(match c {
            b' ' | b'\t' | b'\n' => {
                i += 1;
                continue;
            }
            b'(' => Tok::Open,
            b')' => Tok::Close,
            b',' => Tok::Comma,
            b'+' => Tok::Plus,
            b'-' => Tok::Minus,
            b'*' => Tok::Star,
            b'/' => Tok::Slash,
            _ => return None,
        });
        i += 1;
    }
    Some(out)
}

#[derive(Debug, Clone, Copy)]
enum Val {
    Num(f64),
    Len(Radius),
}

struct Parser {
    toks: Vec<Tok>,
    at: usize,
}

/// Deepest nesting followed: computed values are shallow; a deeper one does not resolve
/// rather than recursing without bound on a hostile page's style.
const MAX_DEPTH: usize = 16;

impl Parser {
    fn peek(&self) -> Option<Tok> {
        self.toks.get(self.at).copied()
    }

    fn eat(&mut self, t: Tok) -> Option<()> {
        (self.peek()? == t).then(|| self.at += 1)
    }

    fn sum(&mut self) -> Option<Val> {
        self.sum_at(0)
    }

    fn sum_at(&mut self, depth: usize) -> Option<Val> {
        let mut acc = self.product(depth)?;
        loop {
            let neg = match self.peek() {
                Some(Tok::Plus) => false,
                Some(Tok::Minus) => true,
                _ => return Some(acc),
            };
            self.at += 1;
            let mut rhs = self.product(depth)?;
            if neg {
                rhs = mul(rhs, -1.0)?;
            }
            acc = add(acc, rhs)?;
        }
    }

    fn product(&mut self, depth: usize) -> Option<Val> {
        let mut acc = self.operand(depth)?;
        loop {
            match self.peek() {
                Some(Tok::Star) => {
                    self.at += 1;
                    let rhs = self.operand(depth)?;
                    acc = match (acc, rhs) {
                        (Val::Num(k), v) | (v, Val::Num(k)) => mul(v, k)?,
                        _ => return None,
                    };
                }
                Some(Tok::Slash) => {
                    self.at += 1;
                    let Val::Num(k) = self.operand(depth)? else {
                        return None;
                    };
                    if k == 0.0 {
                        return None;
                    }
                    acc = mul(acc, 1.0 / k)?;
                }
                _ => return Some(acc),
            }
        }
    }

    fn operand(&mut self, depth: usize) -> Option<Val> {
        if depth > MAX_DEPTH {
            return None;
        }
        match self.peek()? {
            Tok::Num(v, unit) => {
                self.at += 1;
                Some(match unit {
                    0 => Val::Num(v),
                    1 => Val::Len(Radius::px(v)),
                    _ => Val::Len(Radius::fraction(v / 100.0)),
                })
            }
            Tok::Open => {
                self.at += 1;
                let v = self.sum_at(depth + 1)?;
                self.eat(Tok::Close)?;
                Some(v)
            }
            Tok::Func(f) => {
                self.at += 1;
                let mut args = vec![self.sum_at(depth + 1)?];
                while self.eat(Tok::Comma).is_some() {
                    args.push(self.sum_at(depth + 1)?);
                }
                self.eat(Tok::Close)?;
                match f {
                    0 if args.len() == 1 => Some(args[0]),
                    1 => extreme(&args, false),
                    2 => extreme(&args, true),
                    3 if args.len() == 3 => {
                        let [lo, val, hi] = [args[0], args[1], args[2]].map(linear);
                        Some(Val::Len(Radius {
                            lo: lo?,
                            val: val?,
                            hi: hi?,
                        }))
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }
}

fn linear(v: Val) -> Option<Linear> {
    match v {
        Val::Len(r) => r.as_linear(),
        // A bare `0` stands for `0px`.
        Val::Num(0.0) => Some(Linear::ZERO),
        Val::Num(_) => None,
    }
}

fn add(a: Val, b: Val) -> Option<Val> {
    match (a, b) {
        (Val::Num(x), Val::Num(y)) => Some(Val::Num(x + y)),
        (Val::Len(x), Val::Len(y)) => {
            // Adding a length shifts a clamp's three terms alike.
            let (c, shift) = match (x.as_linear(), y.as_linear()) {
                (_, Some(l)) => (x, l),
                (Some(l), None) => (y, l),
                (None, None) => return None,
            };
            let shifted = |t: Linear| if t.px.is_infinite() { t } else { t.add(shift) };
            Some(Val::Len(Radius {
                lo: shifted(c.lo),
                val: c.val.add(shift),
                hi: shifted(c.hi),
            }))
        }
        _ => None,
    }
}

fn mul(v: Val, k: f64) -> Option<Val> {
    let k32 = k as f32;
    if !k32.is_finite() {
        return None;
    }
    Some(match v {
        Val::Num(x) => Val::Num(x * k),
        // A negative factor turns the floor into the ceiling.
        Val::Len(r) if k32 < 0.0 => Val::Len(Radius {
            lo: r.hi.scale(k32),
            val: r.val.scale(k32),
            hi: r.lo.scale(k32),
        }),
        Val::Len(r) => Val::Len(Radius {
            lo: r.lo.scale(k32),
            val: r.val.scale(k32),
            hi: r.hi.scale(k32),
        }),
    })
}

/// `min(...)` (`max` false) or `max(...)`: terms that can never be the result are dropped; what
/// is left must fit one clamp.
fn extreme(args: &[Val], max: bool) -> Option<Val> {
    // Flatten a plain clamp of one side (`min(8px, X)` inside a `max()` is kept apart below).
    let mut terms: Vec<Linear> = Vec::with_capacity(args.len());
    let mut inner: Option<Radius> = None;
    for a in args {
        match linear(*a) {
            Some(l) => terms.push(l),
            None => match a {
                Val::Len(r) if inner.is_none() => inner = Some(*r),
                _ => return None,
            },
        }
    }
    // Keep only the terms that can win: for `min`, those not above another term.
    let mut kept: Vec<Linear> = Vec::with_capacity(terms.len());
    for (i, t) in terms.iter().enumerate() {
        let beaten = terms.iter().enumerate().any(|(j, o)| {
            let loses = if max { t.below(*o) } else { o.below(*t) };
            // Of two equal terms keep the first.
            j != i && loses && (*o != *t || j < i)
        });
        if !beaten {
            kept.push(*t);
        }
    }
    let r = match (inner, kept.as_slice(), max) {
        (None, [a], _) => Radius::linear(*a),
        (None, [a, b], false) => Radius {
            lo: Linear::NEG_INF,
            val: *a,
            hi: *b,
        },
        (None, [a, b], true) => Radius {
            lo: *a,
            val: *b,
            hi: Linear::INF,
        },
        // `max(floor, min(v, h))`: the idiom that keeps corners only on narrow boxes.
        (Some(c), [floor], true) if c.lo == Linear::NEG_INF || c.lo.below(*floor) => {
            Radius { lo: *floor, ..c }
        }
        // `min(ceiling, max(lo, v))`, when the floor never passes the ceiling.
        (Some(c), [ceiling], false) if c.hi == Linear::INF && c.lo.below(*ceiling) => {
            Radius { hi: *ceiling, ..c }
        }
        (Some(c), [], _) => c,
        _ => return None,
    };
    Some(Val::Len(r))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str, side: f64) -> f64 {
        Radius::parse(s).map(|r| r.of(side)).unwrap_or(f64::NAN)
    }

    #[test]
    fn resolves_chromium_computed_forms() {
        assert_eq!(at("8px", 100.0), 8.0);
        assert_eq!(at("50%", 40.0), 20.0);
        assert_eq!(at("0", 40.0), 0.0);
        assert_eq!(at("1e-05px", 40.0), 1e-5_f32 as f64);
        assert!((at("calc(10% + 4px)", 200.0) - 24.0).abs() < 1e-4);
        assert!((at("calc(10% - 5px)", 200.0) - 15.0).abs() < 1e-4);
        assert!((at("calc(33.3333% - 1.33333px)", 30.0) - 8.66666).abs() < 1e-3);
        assert!((at("calc(2% + 16px)", 100.0) - 18.0).abs() < 1e-4);
        // min / max / clamp, as Chromium serializes them (inner sums without `calc`).
        assert!((at("min(10px, 6.66667%)", 60.0) - 4.0).abs() < 1e-4);
        assert_eq!(at("min(10px, 6.66667%)", 600.0), 10.0);
        assert!((at("max(10% - 2px, 3px)", 20.0) - 3.0).abs() < 1e-4);
        assert!((at("max(10% - 2px, 3px)", 200.0) - 18.0).abs() < 1e-4);
        assert_eq!(at("clamp(0px, 50%, 9999px)", 30.0), 15.0);
        assert!((at("calc(2px + min(10px, 5%))", 100.0) - 7.0).abs() < 1e-4);
        // Round only when narrower than the viewport (a 776 px one here).
        let fb = "max(0px, min(8px, -999900% + 7.75922e+06px))";
        assert_eq!(at(fb, 300.0), 8.0);
        assert_eq!(at(fb, 776.0), 0.0);
        assert!((at("calc((100% - 4px) / 3)", 34.0) - 10.0).abs() < 1e-4);
        assert!((at("calc(-1 * (10% - 20px))", 100.0) - 10.0).abs() < 1e-4);
        // A huge radius is huge, not an open end.
        assert_eq!(at("1e300px", 40.0), 1e30_f32 as f64);
        // The floor wins over the ceiling, as CSS says.
        assert_eq!(at("clamp(10px, 50%, 4px)", 100.0), 10.0);
    }

    #[test]
    fn leaves_what_it_cannot_hold_unresolved() {
        for s in [
            "",
            "auto",
            "1em",
            "10deg",
            "calc(10% + )",
            "calc(10%",
            "var(--r)",
            "min(10px, 20%, 30% - 5px)",
            "calc(min(1px, 2%) + max(3px, 4%))",
            "calc(10% * 5%)",
            "calc(10px / 0)",
            "3",
        ] {
            assert!(Radius::parse(s).is_none(), "{s}");
        }
        let deep = format!("{}1px{}", "calc(".repeat(40), ")".repeat(40));
        assert!(Radius::parse(&deep).is_none());
        // Terms that cannot win are dropped: three terms still fit.
        assert!(Radius::parse("min(10px, 20%, 30px)").is_some());
    }

    #[test]
    fn square_only_when_it_always_is() {
        assert!(Radius::parse("0px").is_some_and(Radius::is_square));
        assert!(Radius::parse("min(0px, 10%)").is_some_and(Radius::is_square));
        assert!(!Radius::parse("calc(10% - 4px)").is_some_and(Radius::is_square));
        assert!(!Radius::parse("max(0px, min(8px, -9% + 7px))").is_some_and(Radius::is_square));
    }
}
