//! A reader of JSON bytes for the replies the engine reads with readers of their own (the DOM
//! snapshot's, `dom/reader.rs`, and the accessibility nodes', `ax/reader.rs`): the tokens,
//! strings, numbers and skipped values they share.
//!
//! Every read gives what serde_json would give for the same bytes, or `None`: the readers then
//! leave the text to serde_json, whose value or error is the one given. Every byte accepted
//! outside a string is ASCII, so only strings (values, keys, skipped ones) are checked to be
//! UTF-8, and not even those when the bytes are a `&str` already ([`Reader::in_text`]).

use std::borrow::Cow;

/// How deep an unknown value may nest. serde_json refuses more than 128 levels counted from the
/// top; the values the readers know lie a few levels down, so within this serde_json reads what
/// is skipped here, and beyond it serde_json is left to decide.
pub(super) const SKIP_DEPTH: u32 = 100;

/// What an escaped UTF-16 surrogate without its other half becomes.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Surrogates {
    /// Nothing: serde_json refuses it in a string it reads.
    Refuse,
    /// U+FFFD, as [`crate::transport::RawJson::parse`] reads it (it repairs the text and reads
    /// it again).
    Replace,
}

/// Powers of ten an `f64` holds exactly: one product or quotient with one of these is
/// correctly rounded (the Clinger fast path).
pub(super) const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// The largest integer up to which every integer is an `f64`, plus one.
pub(super) const EXACT_INTEGERS: u64 = 1 << 53;

/// A position in JSON bytes, read one token or one value at a time.
pub(super) struct Reader<'a> {
    pub(super) bytes: &'a [u8],
    pub(super) at: usize,
    /// The bytes as text, when they are known to be UTF-8: a string's bytes between two
    /// quotes (ASCII, so on character boundaries) are then text without a check.
    text: Option<&'a str>,
    surrogates: Surrogates,
}

/// JSON's whitespace: space, tab, line feed, carriage return.
pub(super) fn is_json_whitespace(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// Fills a field's slot once: serde refuses a field given twice.
pub(super) fn set_once<T>(slot: &mut Option<T>, value: Option<T>) -> Option<()> {
    if slot.is_some() {
        return None;
    }
    *slot = Some(value?);
    Some(())
}

/// A string's bytes as text, if they are UTF-8.
#[inline]
pub(super) fn utf8(bytes: &[u8]) -> Option<&str> {
    std::str::from_utf8(bytes).ok()
}

/// Where a string's run of plain bytes that starts at `at` ends: at the first `"`, `\\` or
/// control character (which a JSON string may not hold), whichever comes first; `None` when
/// the bytes end first. Eight bytes are looked at a time, in one word: the strings of a reply
/// are mostly a few bytes long (keys, roles, ids), too short for a vector search to pay for
/// setting it up.
#[inline]
pub(super) fn plain_run_end(bytes: &[u8], mut at: usize) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    while let Some(chunk) = bytes.get(at..).and_then(<[u8]>::first_chunk::<8>) {
        let word = u64::from_le_bytes(*chunk);
        let quote = word ^ (ONES * u64::from(b'"'));
        let backslash = word ^ (ONES * u64::from(b'\\'));
        // Each term's lowest set bit marks the first byte that is zero (that is `"` or `\\`),
        // or below 0x20; a borrow can set bits only above it.
        let stops = ((quote.wrapping_sub(ONES) & !quote)
            | (backslash.wrapping_sub(ONES) & !backslash)
            | (word.wrapping_sub(ONES * 0x20) & !word))
            & HIGH;
        if stops != 0 {
            return Some(at + (stops.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    let rest = bytes.get(at..)?;
    rest.iter()
        .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
        .map(|i| at + i)
}

/// The value of four hex digits.
pub(super) fn hex4(digits: &[u8]) -> Option<u32> {
    match digits {
        [_, _, _, _] => digits
            .iter()
            .try_fold(0u32, |n, &d| Some(n << 4 | char::from(d).to_digit(16)?)),
        _ => None,
    }
}

/// `10^k` for every `k` a `u64` holds.
pub(super) const POW10_U64: [u64; 20] = {
    let mut powers = [1u64; 20];
    let mut k = 1;
    while k < 20 {
        powers[k] = powers[k - 1] * 10;
        k += 1;
    }
    powers
};

/// The run of ASCII digits at `at`: its value (wrapping past 19 digits) and its length.
/// Up to eight digits are read at once from one word, with no branch per digit: the lengths of
/// the numbers in a list vary from one to the next, and a branch per digit is mispredicted at
/// the end of nearly every number.
#[inline]
pub(super) fn digits(bytes: &[u8], at: usize) -> (u64, usize) {
    let Some(chunk) = bytes.get(at..).and_then(<[u8]>::first_chunk::<8>) else {
        return more_digits(bytes, at, 0, 0);
    };
    let word = u64::from_le_bytes(*chunk);
    let values = word.wrapping_sub(0x3030_3030_3030_3030);
    // A byte below `0` borrows into its top bit, one above `9` carries into it; the bytes
    // before the first such byte are digits and neither borrow nor carry.
    let not_digits = (word.wrapping_add(0x4646_4646_4646_4646) | values) & 0x8080_8080_8080_8080;
    let len = (not_digits.trailing_zeros() / 8) as usize;
    match len {
        0 => (0, 0),
        8 => more_digits(bytes, at + 8, eight_digits(values), 8),
        // The digits moved up to the top of the word: the bytes below are leading zeros.
        _ => (eight_digits(values << (64 - 8 * len)), len),
    }
}

/// The value of eight digit values in a word, the first (most significant) in its lowest byte.
#[inline]
pub(super) fn eight_digits(values: u64) -> u64 {
    let pairs = (values & 0x0F0F_0F0F_0F0F_0F0F).wrapping_mul(2561) >> 8;
    let quads = (pairs & 0x00FF_00FF_00FF_00FF).wrapping_mul(6_553_601) >> 16;
    (quads & 0x0000_FFFF_0000_FFFF).wrapping_mul(42_949_672_960_001) >> 32
}

/// [`digits`] one by one from `at`, `value` and `len` being those of the digits before it.
pub(super) fn more_digits(
    bytes: &[u8],
    mut at: usize,
    mut value: u64,
    mut len: usize,
) -> (u64, usize) {
    while let Some(&b) = bytes.get(at) {
        let digit = b.wrapping_sub(b'0');
        if digit > 9 {
            break;
        }
        value = value.wrapping_mul(10).wrapping_add(u64::from(digit));
        len += 1;
        at += 1;
    }
    (value, len)
}

/// Where the run of ASCII digits starting at `at` ends.
#[inline]
pub(super) fn digits_end(bytes: &[u8], mut at: usize) -> usize {
    while bytes.get(at).is_some_and(u8::is_ascii_digit) {
        at += 1;
    }
    at
}

impl<'a> Reader<'a> {
    /// A reader of bytes not known to be UTF-8: each string read or stepped over is checked.
    pub(super) fn new(bytes: &'a [u8], surrogates: Surrogates) -> Reader<'a> {
        Reader {
            bytes,
            at: 0,
            text: None,
            surrogates,
        }
    }

    /// A reader of `text` from `at`.
    pub(super) fn in_text(text: &'a str, at: usize, surrogates: Surrogates) -> Reader<'a> {
        Reader {
            bytes: text.as_bytes(),
            at,
            text: Some(text),
            surrogates,
        }
    }

    /// The string at `start..end` of the bytes, if it is UTF-8.
    #[inline]
    fn str_at(&self, start: usize, end: usize) -> Option<&'a str> {
        match self.text {
            Some(text) => text.get(start..end),
            None => utf8(self.bytes.get(start..end)?),
        }
    }

    #[inline]
    pub(super) fn skip_ws(&mut self) {
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.bytes.get(self.at) {
            self.at += 1;
        }
    }

    /// The next byte that is not whitespace, consumed.
    #[inline]
    pub(super) fn next(&mut self) -> Option<u8> {
        self.skip_ws();
        let b = *self.bytes.get(self.at)?;
        self.at += 1;
        Some(b)
    }

    #[inline]
    pub(super) fn expect(&mut self, b: u8) -> Option<()> {
        (self.next()? == b).then_some(())
    }

    /// Consumes `b` when it is the next byte that is not whitespace.
    #[inline]
    pub(super) fn eat(&mut self, b: u8) -> bool {
        self.skip_ws();
        let found = self.bytes.get(self.at) == Some(&b);
        if found {
            self.at += 1;
        }
        found
    }

    /// Consumes `word` when the text goes on with it.
    pub(super) fn word(&mut self, word: &[u8]) -> bool {
        let found = self.bytes.get(self.at..self.at + word.len()) == Some(word);
        if found {
            self.at += word.len();
        }
        found
    }

    /// An object, `field` reading the value of each key.
    #[inline]
    pub(super) fn object(
        &mut self,
        mut field: impl FnMut(&mut Self, &'a [u8]) -> Option<()>,
    ) -> Option<()> {
        self.expect(b'{')?;
        if self.eat(b'}') {
            return Some(());
        }
        loop {
            self.expect(b'"')?;
            let key = self.key()?;
            self.expect(b':')?;
            field(self, key)?;
            match self.next()? {
                b',' => {}
                b'}' => return Some(()),
                _ => return None,
            }
        }
    }

    /// An array, `item` reading each element.
    #[inline]
    pub(super) fn array(&mut self, mut item: impl FnMut(&mut Self) -> Option<()>) -> Option<()> {
        self.expect(b'[')?;
        if self.eat(b']') {
            return Some(());
        }
        loop {
            item(self)?;
            // The separator in one look: a list of lists has one after every short row.
            match self.bytes.get(self.at..self.at + 2) {
                Some([b',', b' ']) => self.at += 2,
                Some([b',', _]) => self.at += 1,
                Some([b']', _]) => {
                    self.at += 1;
                    return Some(());
                }
                _ => match self.next()? {
                    b',' => {}
                    b']' => return Some(()),
                    _ => return None,
                },
            }
        }
    }

    /// `null` (no value, as serde reads it into an `Option`) or what `read` reads.
    pub(super) fn nullable<T>(
        &mut self,
        read: impl FnOnce(&mut Self) -> Option<T>,
    ) -> Option<Option<T>> {
        self.skip_ws();
        if self.word(b"null") {
            Some(None)
        } else {
            read(self).map(Some)
        }
    }

    /// A key, its opening quote read. One with escapes is left to serde_json, which compares
    /// keys unescaped.
    pub(super) fn key(&mut self) -> Option<&'a [u8]> {
        let start = self.at;
        let end = plain_run_end(self.bytes, start)?;
        let key = self.bytes.get(start..end)?;
        if self.bytes.get(end) != Some(&b'"') {
            return None;
        }
        if self.text.is_none() {
            self.str_at(start, end)?;
        }
        self.at = end + 1;
        Some(key)
    }

    /// How many more values the text can hold at most (each takes a digit and a separator):
    /// what may be reserved ahead without trusting the text.
    pub(super) fn room(&self) -> usize {
        self.bytes.len().saturating_sub(self.at) / 2
    }

    /// An integer as serde_json reads it into an `i64`: digits, no fraction or exponent
    /// (serde_json reads those as floats, which an `i64` refuses), no `-0` (a float too).
    #[inline]
    pub(super) fn i64(&mut self) -> Option<i64> {
        self.skip_ws();
        let bytes = self.bytes;
        let mut at = self.at;
        let negative = bytes.get(at) == Some(&b'-');
        at += usize::from(negative);
        let (n, len) = digits(bytes, at);
        // Past 19 digits the value may have wrapped; serde_json reads it as a float anyway.
        if len == 0 || len > 19 || (len > 1 && bytes.get(at) == Some(&b'0')) {
            return None;
        }
        at += len;
        if let Some(b'.' | b'e' | b'E') = bytes.get(at) {
            return None;
        }
        self.at = at;
        if negative {
            // As serde_json: the negation of what does not fit, or of zero, is a float.
            let value = (n as i64).wrapping_neg();
            (value < 0).then_some(value)
        } else {
            i64::try_from(n).ok()
        }
    }

    /// A number as serde_json reads it into an `f64`. Integers of up to 19 digits are converted
    /// as serde_json converts them (`as f64`); decimals with a significand below 2^53 and a
    /// power of ten up to 22 are one correctly rounded operation, which serde_json's result is
    /// too. Any other number is handed to serde_json itself: whether its conversion is
    /// correctly rounded depends on its features, and the value must be the one it gives.
    #[inline]
    pub(super) fn f64(&mut self) -> Option<f64> {
        self.skip_ws();
        let bytes = self.bytes;
        let start = self.at;
        let mut at = start;
        let negative = bytes.get(at) == Some(&b'-');
        at += usize::from(negative);
        let (integer, integer_len) = digits(bytes, at);
        if integer_len == 0 || (integer_len > 1 && bytes.get(at) == Some(&b'0')) {
            return None;
        }
        at += integer_len;
        let mut significand = integer;
        let mut significant_len = integer_len;
        let mut exponent = 0i64;
        let mut integral = true;
        if bytes.get(at) == Some(&b'.') {
            let (fraction, fraction_len) = digits(bytes, at + 1);
            if fraction_len == 0 {
                return None;
            }
            at += 1 + fraction_len;
            integral = false;
            significant_len += fraction_len;
            significand = match POW10_U64.get(fraction_len) {
                Some(&power) if significant_len <= 19 => integer * power + fraction,
                _ => 0,
            };
            exponent = -(fraction_len as i64);
        }
        let mut exponent_len = 0;
        if let Some(b'e' | b'E') = bytes.get(at) {
            at += 1;
            let negative_exponent = bytes.get(at) == Some(&b'-');
            at += usize::from(matches!(bytes.get(at), Some(b'-' | b'+')));
            let (written, len) = digits(bytes, at);
            if len == 0 {
                return None;
            }
            at += len;
            integral = false;
            exponent_len = len;
            // Up to 4 digits the value is exact; past them the slow path decides.
            let written = written as i64;
            exponent += if negative_exponent { -written } else { written };
        }
        self.at = at;
        if significant_len <= 19 && exponent_len <= 4 {
            let magnitude = if integral {
                Some(significand as f64)
            } else if significand < EXACT_INTEGERS {
                POW10.get(exponent.unsigned_abs() as usize).map(|&power| {
                    if exponent >= 0 {
                        significand as f64 * power
                    } else {
                        significand as f64 / power
                    }
                })
            } else {
                None
            };
            if let Some(magnitude) = magnitude {
                return Some(if negative { -magnitude } else { magnitude });
            }
        }
        self.slow_f64(start, at)
    }

    #[cold]
    #[inline(never)]
    fn slow_f64(&self, start: usize, end: usize) -> Option<f64> {
        serde_json::from_slice(self.bytes.get(start..end)?).ok()
    }

    /// A string value, its opening quote next (after any whitespace).
    #[inline]
    pub(super) fn quoted_text(&mut self) -> Option<Cow<'a, str>> {
        self.expect(b'"')?;
        self.text()
    }

    /// A string, its opening quote read: borrowed from the bytes when it has no escape.
    #[inline]
    pub(super) fn text(&mut self) -> Option<Cow<'a, str>> {
        let start = self.at;
        let end = plain_run_end(self.bytes, start)?;
        match self.bytes.get(end)? {
            b'"' => {
                self.at = end + 1;
                self.str_at(start, end).map(Cow::Borrowed)
            }
            b'\\' => self.escaped_string(start).map(Cow::Owned),
            _ => None,
        }
    }

    /// A string with escapes, from its start.
    #[cold]
    #[inline(never)]
    fn escaped_string(&mut self, start: usize) -> Option<String> {
        let mut out = String::new();
        let mut at = start;
        loop {
            let end = plain_run_end(self.bytes, at)?;
            out.push_str(self.str_at(at, end)?);
            at = end;
            if self.bytes.get(at) == Some(&b'"') {
                self.at = at + 1;
                // As serde_json, which copies a string from its scratch buffer.
                out.shrink_to_fit();
                return Some(out);
            }
            if self.bytes.get(at) != Some(&b'\\') {
                return None;
            }
            let escape = *self.bytes.get(at + 1)?;
            at += 2;
            let c = match escape {
                b'"' => '"',
                b'\\' => '\\',
                b'/' => '/',
                b'b' => '\u{8}',
                b'f' => '\u{c}',
                b'n' => '\n',
                b'r' => '\r',
                b't' => '\t',
                b'u' => {
                    let unit = hex4(self.bytes.get(at..at + 4)?)?;
                    at += 4;
                    match unit {
                        0xD800..=0xDBFF => {
                            let low = match self.bytes.get(at..at + 6) {
                                Some([b'\\', b'u', digits @ ..]) => {
                                    hex4(digits).filter(|low| (0xDC00..=0xDFFF).contains(low))
                                }
                                _ => None,
                            };
                            match low {
                                Some(low) => {
                                    at += 6;
                                    char::from_u32(
                                        0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00),
                                    )?
                                }
                                None => self.lone_surrogate()?,
                            }
                        }
                        0xDC00..=0xDFFF => self.lone_surrogate()?,
                        unit => char::from_u32(unit)?,
                    }
                }
                _ => return None,
            };
            out.push(c);
        }
    }

    /// What an unpaired surrogate reads as. The surrogate that follows an unpaired leading one
    /// is read on its own, as the repair before serde_json's second reading leaves it.
    fn lone_surrogate(&self) -> Option<char> {
        (self.surrogates == Surrogates::Replace).then_some(char::REPLACEMENT_CHARACTER)
    }

    /// Steps over any JSON value, checking it as serde_json would when ignoring it.
    pub(super) fn skip_value(&mut self, depth: u32) -> Option<()> {
        match self.next()? {
            b'"' => self.skip_string(),
            b'{' => {
                let depth = depth.checked_sub(1)?;
                if self.eat(b'}') {
                    return Some(());
                }
                loop {
                    self.expect(b'"')?;
                    self.skip_string()?;
                    self.expect(b':')?;
                    self.skip_value(depth)?;
                    match self.next()? {
                        b',' => {}
                        b'}' => return Some(()),
                        _ => return None,
                    }
                }
            }
            b'[' => {
                let depth = depth.checked_sub(1)?;
                if self.eat(b']') {
                    return Some(());
                }
                loop {
                    self.skip_value(depth)?;
                    match self.next()? {
                        b',' => {}
                        b']' => return Some(()),
                        _ => return None,
                    }
                }
            }
            b't' => self.word(b"rue").then_some(()),
            b'f' => self.word(b"alse").then_some(()),
            b'n' => self.word(b"ull").then_some(()),
            b'-' | b'0'..=b'9' => {
                self.at -= 1;
                self.skip_number()
            }
            _ => None,
        }
    }

    /// Steps over a string, its opening quote read; escapes are checked, not decoded (serde_json
    /// does not look for unpaired surrogates in a string it ignores either).
    pub(super) fn skip_string(&mut self) -> Option<()> {
        loop {
            let end = plain_run_end(self.bytes, self.at)?;
            if self.text.is_none() {
                self.str_at(self.at, end)?;
            }
            let stop = *self.bytes.get(end)?;
            self.at = end + 1;
            match stop {
                b'"' => return Some(()),
                b'\\' => {}
                _ => return None,
            }
            match *self.bytes.get(self.at)? {
                b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => self.at += 1,
                b'u' => {
                    hex4(self.bytes.get(self.at + 1..self.at + 5)?)?;
                    self.at += 5;
                }
                _ => return None,
            }
        }
    }

    /// Steps over a number as JSON writes one.
    pub(super) fn skip_number(&mut self) -> Option<()> {
        let bytes = self.bytes;
        let mut at = self.at;
        if bytes.get(at) == Some(&b'-') {
            at += 1;
        }
        match bytes.get(at)? {
            b'0' => at += 1,
            b'1'..=b'9' => at = digits_end(bytes, at + 1),
            _ => return None,
        }
        if bytes.get(at) == Some(&b'.') {
            let end = digits_end(bytes, at + 1);
            if end == at + 1 {
                return None;
            }
            at = end;
        }
        if let Some(b'e' | b'E') = bytes.get(at) {
            at += 1;
            if let Some(b'+' | b'-') = bytes.get(at) {
                at += 1;
            }
            let end = digits_end(bytes, at);
            if end == at {
                return None;
            }
            at = end;
        }
        self.at = at;
        Some(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`plain_run_end`] one byte at a time.
    fn one_by_one(bytes: &[u8], at: usize) -> Option<usize> {
        (at..bytes.len()).find(|&i| matches!(bytes[i], b'"' | b'\\' | 0..=0x1f))
    }

    #[test]
    fn a_plain_run_ends_where_a_byte_by_byte_search_says() {
        // Every stop byte, and the bytes next to them that are not, at every place of words of
        // up to three chunks, after bytes of every kind (a borrow from a byte below must not
        // hide a stop above it).
        let stops = [b'"', b'\\', 0, 0x1f, b'\n'];
        let others = [
            b'a', b' ', b'!', b'#', b'[', b']', 0x20, 0x7f, 0x80, 0xc3, 0xff,
        ];
        let mut checked = 0;
        for len in 0..24 {
            for &fill in &others {
                for place in 0..=len {
                    for &stop in stops.iter().chain(&others) {
                        let mut bytes = vec![fill; len];
                        if place < len {
                            bytes[place] = stop;
                        }
                        for &before in &[0u8, 1, b'"', b'!', 0xff] {
                            if let Some(b) = place.checked_sub(1).and_then(|p| bytes.get_mut(p)) {
                                *b = before;
                            }
                            for at in 0..=len {
                                assert_eq!(
                                    plain_run_end(&bytes, at),
                                    one_by_one(&bytes, at),
                                    "{bytes:?} from {at}"
                                );
                                checked += 1;
                            }
                        }
                    }
                }
            }
        }
        assert!(checked > 100_000, "{checked}");
    }

    #[test]
    fn text_known_to_be_utf8_reads_as_bytes_checked_do() {
        for text in [
            r#""plain""#,
            r#""caf\u00e9 \"q\" \\ \/ \ud83d\ude00 é 😀""#,
            "\"ends in a multibyte char é\"",
            "\"a\u{1}b\"",
            r#""a\qb""#,
            r#""unterminated"#,
            r#""\ud800""#,
        ] {
            let mut in_text = Reader::in_text(text, 1, Surrogates::Refuse);
            let mut bytes = Reader::new(text.as_bytes(), Surrogates::Refuse);
            bytes.at = 1;
            let (a, b) = (in_text.text(), bytes.text());
            assert_eq!(a, b, "{text}");
            assert_eq!(
                a.as_deref(),
                serde_json::from_str::<String>(text).ok().as_deref()
            );
            assert_eq!(in_text.at, bytes.at, "{text}");
            let mut skip_text = Reader::in_text(text, 1, Surrogates::Refuse);
            let mut skip_bytes = Reader::new(text.as_bytes(), Surrogates::Refuse);
            skip_bytes.at = 1;
            assert_eq!(skip_text.skip_string(), skip_bytes.skip_string(), "{text}");
        }
    }
}

/// The reader against serde_json on generated JSON: every value it reads is the one serde_json
/// reads from the same bytes, and when it cannot tell it says so (`None`), never a different
/// value, never a panic. The bytes are generated values written compactly and pretty, then
/// damaged (cut short, a byte changed, dropped or added), and numbers and strings written in
/// every way JSON allows.
#[cfg(test)]
mod differential {
    use super::*;
    use crate::transport::envelope::repair_lone_surrogates;
    use proptest::collection::{btree_map, vec};
    use proptest::prelude::*;
    use serde_json::{Map, Number, Value};

    /// A whole value read with the reader's parts, as the DOM and AX readers put them together:
    /// `None` where they would leave the text to serde_json. An integer that is no `i64` (past
    /// its range, `-0`) is one of those: the readers read every integer field as an `i64`.
    fn read_value(r: &mut Reader, depth: u32) -> Option<Value> {
        r.skip_ws();
        match *r.bytes.get(r.at)? {
            b'{' => {
                let depth = depth.checked_sub(1)?;
                let mut map = Map::new();
                r.object(|r, key| {
                    let key = utf8(key)?.to_owned();
                    let value = read_value(r, depth)?;
                    map.insert(key, value);
                    Some(())
                })?;
                Some(Value::Object(map))
            }
            b'[' => {
                let depth = depth.checked_sub(1)?;
                let mut items = Vec::new();
                r.array(|r| {
                    items.push(read_value(r, depth)?);
                    Some(())
                })?;
                Some(Value::Array(items))
            }
            b'"' => r.quoted_text().map(|t| Value::String(t.into_owned())),
            b't' => r.word(b"true").then_some(Value::Bool(true)),
            b'f' => r.word(b"false").then_some(Value::Bool(false)),
            b'n' => r.word(b"null").then_some(Value::Null),
            b'-' | b'0'..=b'9' => {
                let start = r.at;
                if let Some(i) = r.i64() {
                    return Some(Value::from(i));
                }
                let digits = start + usize::from(r.bytes.get(start) == Some(&b'-'));
                if !matches!(
                    r.bytes.get(digits_end(r.bytes, digits)),
                    Some(b'.' | b'e' | b'E')
                ) {
                    return None;
                }
                r.at = start;
                Number::from_f64(r.f64()?).map(Value::Number)
            }
            _ => None,
        }
    }

    /// The reader's reading of the whole of `bytes` as one value, as bytes and (when they are
    /// UTF-8) as text, which must agree.
    fn read_whole(bytes: &[u8], surrogates: Surrogates) -> Option<Value> {
        let whole = |mut r: Reader| {
            let value = read_value(&mut r, SKIP_DEPTH)?;
            r.skip_ws();
            (r.at == r.bytes.len()).then_some(value)
        };
        let from_bytes = whole(Reader::new(bytes, surrogates));
        if let Ok(text) = std::str::from_utf8(bytes) {
            let from_text = whole(Reader::in_text(text, 0, surrogates));
            assert_eq!(from_bytes, from_text, "{text}");
        }
        from_bytes
    }

    /// Whether the reader steps over the whole of `bytes` as one value.
    fn skips_whole(bytes: &[u8]) -> bool {
        let mut r = Reader::new(bytes, Surrogates::Refuse);
        let skipped = r.skip_value(SKIP_DEPTH).is_some() && {
            r.skip_ws();
            r.at == bytes.len()
        };
        if let Ok(text) = std::str::from_utf8(bytes) {
            let mut t = Reader::in_text(text, 0, Surrogates::Refuse);
            let in_text = t.skip_value(SKIP_DEPTH).is_some() && {
                t.skip_ws();
                t.at == bytes.len()
            };
            // Text is known to be UTF-8: it may skip what bytes refuse, never the reverse.
            assert!(in_text || !skipped, "{text}");
        }
        skipped
    }

    /// Equal values, and numbers of the same bits (`0.0 == -0.0`, but they are not the same).
    fn assert_same(ours: &Value, theirs: &Value, bytes: &[u8]) {
        assert_eq!(ours, theirs, "{}", String::from_utf8_lossy(bytes));
        assert_eq!(
            ours.to_string(),
            theirs.to_string(),
            "{}",
            String::from_utf8_lossy(bytes)
        );
    }

    /// Everything the reader makes of `bytes`, checked against serde_json.
    fn check(bytes: &[u8]) {
        let serde: Option<Value> = serde_json::from_slice(bytes).ok();
        if let Some(ours) = read_whole(bytes, Surrogates::Refuse) {
            let theirs = serde.as_ref().unwrap_or_else(|| {
                panic!(
                    "read {ours} where serde_json reads nothing: {}",
                    String::from_utf8_lossy(bytes)
                )
            });
            assert_same(&ours, theirs, bytes);
        }
        // Lone surrogates become U+FFFD, as serde_json reads the repaired bytes.
        if let Some(ours) = read_whole(bytes, Surrogates::Replace) {
            let mut repaired = bytes.to_vec();
            repair_lone_surrogates(&mut repaired);
            let theirs: Value = serde_json::from_slice(&repaired).unwrap_or_else(|e| {
                panic!(
                    "read {ours} where serde_json reads nothing ({e}): {}",
                    String::from_utf8_lossy(bytes)
                )
            });
            assert_same(&ours, &theirs, bytes);
        }
        if skips_whole(bytes) {
            assert!(
                serde_json::from_slice::<serde::de::IgnoredAny>(bytes).is_ok(),
                "skipped what serde_json refuses: {}",
                String::from_utf8_lossy(bytes)
            );
        }
    }

    /// Characters with a meaning in JSON text, or an escape of their own, or several bytes.
    fn tricky_char() -> impl Strategy<Value = char> {
        prop_oneof![
            3 => any::<char>(),
            2 => prop::sample::select(vec![
                '"', '\\', '/', '\u{0}', '\u{8}', '\u{c}', '\n', '\r', '\t', '\u{1f}', '\u{7f}',
                'é', '\u{2028}', '\u{fffd}', '😀', 'a', ' ', '0', 'u', 'e', '.', '-',
            ]),
        ]
    }

    fn text() -> impl Strategy<Value = String> {
        vec(tricky_char(), 0..12).prop_map(|chars| chars.into_iter().collect())
    }

    fn json_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            (0i64..1000).prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<f64>().prop_filter_map("finite", |f| Number::from_f64(f).map(Value::Number)),
            (-1000i32..1000, 0u32..6)
                .prop_map(|(n, k)| Value::from(f64::from(n) / 10f64.powi(k as i32))),
            text().prop_map(Value::String),
        ];
        leaf.prop_recursive(5, 48, 6, |inner| {
            prop_oneof![
                vec(inner.clone(), 0..6).prop_map(Value::Array),
                btree_map(text(), inner, 0..6).prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    /// Bytes that change what JSON means where they land.
    const SPECIAL: &[u8] = b"\"\\{}[],:-+.eE0123456789 \n\tu\x00\x1f\x7f\x80\xc3\xa9\xed\xa0\xff";

    #[derive(Debug, Clone)]
    enum Damage {
        Cut(prop::sample::Index),
        Change(prop::sample::Index, u8),
        Drop(prop::sample::Index),
        Add(prop::sample::Index, u8),
    }

    fn damage() -> impl Strategy<Value = Damage> {
        let byte = prop_oneof![prop::sample::select(SPECIAL), any::<u8>()];
        prop_oneof![
            any::<prop::sample::Index>().prop_map(Damage::Cut),
            (any::<prop::sample::Index>(), byte.clone()).prop_map(|(i, b)| Damage::Change(i, b)),
            any::<prop::sample::Index>().prop_map(Damage::Drop),
            (any::<prop::sample::Index>(), byte).prop_map(|(i, b)| Damage::Add(i, b)),
        ]
    }

    fn apply(bytes: &mut Vec<u8>, damage: &Damage) {
        if bytes.is_empty() {
            return;
        }
        match damage {
            Damage::Cut(i) => bytes.truncate(i.index(bytes.len())),
            Damage::Change(i, b) => {
                let i = i.index(bytes.len());
                bytes[i] = *b;
            }
            Damage::Drop(i) => {
                bytes.remove(i.index(bytes.len()));
            }
            Damage::Add(i, b) => bytes.insert(i.index(bytes.len() + 1), *b),
        }
    }

    /// A number as JSON may write it, and as it may not: leading zeros, a sign, a fraction, an
    /// exponent, up to 25 digits in each part.
    fn number_text() -> impl Strategy<Value = String> {
        let digits = |max: usize| vec(prop::sample::select(b"0123456789".to_vec()), 0..max);
        (
            prop::sample::select(vec!["", "-", "+"]),
            digits(25),
            prop::option::of(digits(25)),
            prop::option::of((
                prop::sample::select(vec!["e", "E"]),
                prop::sample::select(vec!["", "+", "-"]),
                digits(6),
            )),
            prop::sample::select(vec!["", " ", ",", "]", "x", "0", "."]),
        )
            .prop_map(|(sign, int, fraction, exponent, after)| {
                let mut s = String::from(sign);
                s.extend(int.iter().map(|&d| char::from(d)));
                if let Some(fraction) = fraction {
                    s.push('.');
                    s.extend(fraction.iter().map(|&d| char::from(d)));
                }
                if let Some((e, sign, digits)) = exponent {
                    s.push_str(e);
                    s.push_str(sign);
                    s.extend(digits.iter().map(|&d| char::from(d)));
                }
                s.push_str(after);
                s
            })
    }

    /// The value serde_json reads from the start of `text` as a `T`, and where it ends, as a
    /// field of an object is read (a value, then anything).
    fn serde_prefix<T: serde::de::DeserializeOwned>(text: &str) -> Option<(T, usize)> {
        let mut stream = serde_json::Deserializer::from_str(text).into_iter::<T>();
        let value = stream.next()?.ok()?;
        Some((value, stream.byte_offset()))
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 384,
            failure_persistence: None,
            ..ProptestConfig::default()
        })]

        #[test]
        fn a_value_reads_as_serde_json_reads_it(
            value in json_value(),
            pretty in any::<bool>(),
            damages in vec(damage(), 0..3),
        ) {
            let written = if pretty {
                serde_json::to_vec_pretty(&value)
            } else {
                serde_json::to_vec(&value)
            };
            let mut bytes = written.map_err(|e| TestCaseError::fail(e.to_string()))?;
            if damages.is_empty() {
                // Undamaged, every value is stepped over. (Its value is compared with what
                // serde_json reads, not with the one written: serde_json's own reading of a
                // float need not give back the float it wrote.)
                prop_assert!(skips_whole(&bytes), "{}", String::from_utf8_lossy(&bytes));
            }
            for damage in &damages {
                apply(&mut bytes, damage);
            }
            check(&bytes);
        }

        #[test]
        fn a_number_reads_as_serde_json_reads_it(text in number_text()) {
            // What a reader takes is checked where its caller goes on: at a separator or the
            // end. Anything else after it fails the caller (`12x`, `01`), whatever was taken.
            let at_separator =
                |r: &Reader| matches!(r.bytes.get(r.at), None | Some(b' ' | b',' | b']'));
            for surrogates in [Surrogates::Refuse, Surrogates::Replace] {
                let mut r = Reader::new(text.as_bytes(), surrogates);
                if let Some(ours) = r.i64().filter(|_| at_separator(&r)) {
                    let (theirs, end) = serde_prefix::<i64>(&text)
                        .unwrap_or_else(|| panic!("read {ours} from {text:?}; serde_json nothing"));
                    prop_assert_eq!(ours, theirs, "{}", text);
                    prop_assert_eq!(r.at, end, "{}", text);
                }
                let mut r = Reader::new(text.as_bytes(), surrogates);
                if let Some(ours) = r.f64().filter(|_| at_separator(&r)) {
                    let (theirs, end) = serde_prefix::<f64>(&text)
                        .unwrap_or_else(|| panic!("read {ours} from {text:?}; serde_json nothing"));
                    prop_assert_eq!(ours.to_bits(), theirs.to_bits(), "{}: {} {}", text, ours, theirs);
                    prop_assert_eq!(r.at, end, "{}", text);
                }
                let mut r = Reader::new(text.as_bytes(), surrogates);
                if r.skip_number().is_some() && at_separator(&r) {
                    let (_, end) = serde_prefix::<serde::de::IgnoredAny>(&text)
                        .unwrap_or_else(|| panic!("skipped {text:?}; serde_json refuses it"));
                    prop_assert_eq!(r.at, end, "{}", text);
                }
            }
        }

        #[test]
        fn a_string_reads_as_serde_json_reads_it(
            chars in vec(tricky_char(), 0..16),
            escapes in vec((any::<prop::sample::Index>(), prop_oneof![
                prop::sample::select(vec![
                    "\\\"", "\\\\", "\\/", "\\b", "\\f", "\\n", "\\r", "\\t", "\\u00e9",
                    "\\ud83d\\ude00", "\\ud800", "\\udc00", "\\ud800\\u0041", "\\ud800\\ud800",
                    "\\u12", "\\x", "\\", "\\uDFFF", "\\uD83D\\uDE00",
                ]).prop_map(String::from),
            ]), 0..4),
            cut in prop::option::of(any::<prop::sample::Index>()),
        ) {
            let mut inner: String = chars.into_iter().collect();
            for (at, escape) in &escapes {
                let mut at = at.index(inner.len() + 1);
                while !inner.is_char_boundary(at) {
                    at -= 1;
                }
                inner.insert_str(at, escape);
            }
            let mut bytes = format!("\"{inner}\"").into_bytes();
            if let Some(cut) = cut {
                bytes.truncate(cut.index(bytes.len() + 1));
            }
            check(&bytes);
            // A string as a field's value, followed by more of the object.
            bytes.extend_from_slice(b", 1]");
            let mut r = Reader::new(&bytes, Surrogates::Refuse);
            if let Some(ours) = r.quoted_text() {
                let text = String::from_utf8_lossy(&bytes).into_owned();
                let theirs: Option<String> = serde_json::Deserializer::from_slice(&bytes)
                    .into_iter::<String>()
                    .next()
                    .and_then(|v| v.ok());
                prop_assert_eq!(Some(ours.into_owned()), theirs, "{}", text);
            }
        }
    }
}
