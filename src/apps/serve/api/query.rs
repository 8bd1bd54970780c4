//! A request's query: its parameters decoded and checked against its endpoint ([`Query`]), and
//! what a probe or a batch is asked to answer ([`Probing`]).

use super::error::{ApiError, lookup_error};
use crate::apps::serve::Served;
use crate::base::error::{Error, LookupError};
use crate::table::lookup::{Ask, Lookups};

/// How a probe or a batch answers, from its query: with or without moves, and what the lookup
/// adds ([`Ask`]).
pub(in crate::apps::serve) struct Probing {
    pub(super) moves: bool,
    pub(in crate::apps::serve) ask: Ask,
}

impl Probing {
    /// `moves`, `line`, `value` and `free_moves` from a query: their syntax checked here, and
    /// what they ask of the table (remoteness for a line, game values, free moves from 1 to
    /// 64) by [`Lookups::new`], once, before any position, its refusals in the API's words.
    pub(in crate::apps::serve) fn from_query(q: &Query, t: &Served) -> Result<Probing, ApiError> {
        let moves = q.flag("moves", true)?;
        let line = q.flag("line", false)?;
        let value = q.flag("value", false)?;
        let free_moves_text = q.get("free_moves");
        let bad_free_moves = |text: &str| {
            ApiError::bad(
                "bad_request",
                format!(
                    "parameter 'free_moves' is '{}'; use a whole number from 1 to 64",
                    crate::base::error::cut(text).escape_debug()
                ),
            )
        };
        let free_moves = match free_moves_text {
            None => None,
            Some(text) => Some(text.parse::<u32>().map_err(|_| bad_free_moves(text))?),
        };
        if free_moves.is_some() && !value {
            return Err(ApiError::bad(
                "bad_request",
                "parameter 'free_moves' goes with value=true (the worth of a finished board in \
                 game values)",
            ));
        }
        let ask = Ask {
            line,
            game_values: value.then_some(free_moves.unwrap_or(1)),
        };
        Lookups::new(&t.table, &ask).map_err(|e| match e {
            Error::Lookup(LookupError::FreeMoves { .. }) => {
                bad_free_moves(free_moves_text.unwrap_or_default())
            }
            // Named by the table's name, not by the path of its file.
            Error::Lookup(LookupError::NoRemoteness { .. }) => ApiError::bad(
                "no_remoteness",
                format!(
                    "table '{}' was built without remoteness, so it has no principal lines \
                     (build it with --remoteness)",
                    t.name
                ),
            ),
            e => lookup_error(e),
        })?;
        Ok(Probing { moves, ask })
    }

    /// The lookups `from_query` accepted (their construction cannot fail again).
    pub(in crate::apps::serve) fn lookups<'t>(&self, t: &'t Served) -> Lookups<'t> {
        Lookups::new(&t.table, &self.ask).expect("checked by from_query")
    }
}

/// A `%` not followed by two hex digits, at byte `at` of its text.
#[derive(Debug, thiserror::Error)]
#[error("a '%' at byte {at} is not followed by two hex digits")]
struct BadEscape {
    at: usize,
}

/// `%XX` escapes and `+` (a space) decoded; a malformed escape is an error.
fn percent_decode(s: &str) -> Result<Vec<u8>, BadEscape> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' => {
                let hex = b
                    .get(i + 1..i + 3)
                    .and_then(|h| std::str::from_utf8(h).ok())
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
                    .ok_or(BadEscape { at: i })?;
                out.push(hex);
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    Ok(out)
}

/// Unknown parameters an error names (it counts them all: a URI holds at most about 32,000).
const UNKNOWN_SHOWN: usize = 3;

/// A request's query parameters, decoded, each known to its endpoint and given once.
#[derive(Debug, Default)]
pub(in crate::apps::serve) struct Query {
    pub(super) params: Vec<(String, String)>,
}

impl Query {
    /// Decodes `query`, refusing a parameter not in `allowed` (naming the first few such
    /// ones, how many there are, and what the endpoint takes), one given twice, a malformed `%`
    /// escape and text that is not UTF-8. Linear in the query's length, however many
    /// parameters it holds.
    pub(in crate::apps::serve) fn parse(
        query: Option<&str>,
        allowed: &[&str],
    ) -> Result<Query, ApiError> {
        let mut params: Vec<(String, String)> = Vec::new();
        // Distinct unknown names: the first few to show, and all of them to count.
        let mut shown: Vec<String> = Vec::new();
        let mut unknown: std::collections::HashSet<String> = Default::default();
        let text = |bytes: Vec<u8>, what: &str| {
            String::from_utf8(bytes).map_err(|e| {
                ApiError::bad(
                    "bad_request",
                    format!(
                        "{what} is not UTF-8 text (byte {} after decoding)",
                        e.utf8_error().valid_up_to()
                    ),
                )
            })
        };
        for pair in query.unwrap_or("").split('&') {
            if pair.is_empty() {
                continue;
            }
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            let key = percent_decode(k)
                .map_err(|e| ApiError::bad("bad_request", format!("a parameter's name: {e}")))?;
            let key = text(key, "a parameter's name")?;
            if !allowed.contains(&key.as_str()) {
                if !unknown.contains(&key) {
                    if shown.len() < UNKNOWN_SHOWN {
                        shown.push(format!(
                            "'{}'",
                            crate::base::error::cut(&key).escape_debug()
                        ));
                    }
                    unknown.insert(key);
                }
                continue;
            }
            // `params` holds allowed names only, at most `allowed.len()` of them.
            if params.iter().any(|(k, _)| *k == key) {
                return Err(ApiError::bad(
                    "bad_request",
                    format!("parameter '{key}' is given more than once"),
                ));
            }
            let value = percent_decode(v)
                .map_err(|e| ApiError::bad("bad_request", format!("parameter '{key}': {e}")))?;
            let value = text(value, &format!("parameter '{key}'"))?;
            params.push((key, value));
        }
        if !unknown.is_empty() {
            let takes = if allowed.is_empty() {
                "this endpoint takes no parameters".to_string()
            } else {
                format!("this endpoint takes {}", allowed.join(", "))
            };
            let more = match unknown.len() - shown.len() {
                0 => String::new(),
                n => format!(" and {n} more ({} in all)", unknown.len()),
            };
            return Err(ApiError::bad(
                "bad_request",
                format!(
                    "unknown query parameter{} {}{more}; {takes}",
                    if unknown.len() == 1 { "" } else { "s" },
                    shown.join(", ")
                ),
            ));
        }
        Ok(Query { params })
    }

    pub(in crate::apps::serve) fn get(&self, key: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// A flag: `true`/`1`/`yes`/empty or `false`/`0`/`no`; `default` when absent.
    fn flag(&self, key: &str, default: bool) -> Result<bool, ApiError> {
        match self.get(key) {
            None => Ok(default),
            Some("true" | "1" | "yes" | "") => Ok(true),
            Some("false" | "0" | "no") => Ok(false),
            Some(other) => Err(ApiError::bad(
                "bad_request",
                format!(
                    "parameter '{key}' is '{}'; use true or false",
                    crate::base::error::cut(other).escape_debug()
                ),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{BATCH_PARAMS, PROBE_PARAMS};
    use super::*;
    use axum::http::StatusCode;

    #[test]
    fn percent_decoding() {
        assert_eq!(percent_decode("a%2Fb+c").unwrap(), b"a/b c");
        assert_eq!(percent_decode("%ff").unwrap(), vec![0xff]);
        assert!(percent_decode("%g1").is_err());
        assert!(percent_decode("abc%2").is_err());
    }

    #[test]
    fn query_parameters() {
        let q = Query::parse(Some("moves=0&position=..L%2FR"), PROBE_PARAMS).unwrap();
        assert_eq!(q.get("position"), Some("..L/R"));
        assert_eq!(q.get("line"), None);
        assert!(!q.flag("moves", true).unwrap());
        assert!(q.flag("line", true).unwrap());
        let bad = Query::parse(Some("position=%FF%FE"), PROBE_PARAMS).unwrap_err();
        assert_eq!(bad.status, StatusCode::BAD_REQUEST);
        assert!(bad.detail.contains("not UTF-8"), "{}", bad.detail);
        let q = Query::parse(Some("moves=maybe"), BATCH_PARAMS).unwrap();
        let bad = q.flag("moves", true).unwrap_err();
        assert!(bad.detail.contains("'moves' is 'maybe'"), "{}", bad.detail);
        // Unknown parameters are named, the first few of them, with what the endpoint takes.
        let bad = Query::parse(Some("pos=4&x=1&pos=5"), PROBE_PARAMS).unwrap_err();
        assert_eq!(bad.code, "bad_request");
        assert!(
            bad.detail
                .starts_with("unknown query parameters 'pos', 'x';"),
            "{}",
            bad.detail
        );
        assert!(bad.detail.contains("position, moves"), "{}", bad.detail);
        let many: Vec<String> = (0..5000).map(|i| format!("p{i}=1")).collect();
        let bad = Query::parse(Some(&many.join("&")), PROBE_PARAMS).unwrap_err();
        assert!(
            bad.detail.starts_with(
                "unknown query parameters 'p0', 'p1', 'p2' and 4997 more (5000 in all);"
            ),
            "{}",
            bad.detail
        );
        let bad = Query::parse(Some("t=1"), &[]).unwrap_err();
        assert!(bad.detail.contains("takes no parameters"), "{}", bad.detail);
        // A parameter given twice is refused rather than one of them silently winning.
        let bad = Query::parse(Some("position=4&position=5"), PROBE_PARAMS).unwrap_err();
        assert!(bad.detail.contains("more than once"), "{}", bad.detail);
        // Empty pieces (a trailing '&') are nothing.
        assert!(Query::parse(Some("position=4&"), PROBE_PARAMS).is_ok());
        assert!(Query::parse(Some(""), &[]).is_ok());
    }
}
