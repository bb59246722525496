//! Rust tokens back to TTGIR text for layout-core's parser, remembering which token wrote which
//! bytes, so that a parse error's byte span becomes a compile error on the user's tokens.

use proc_macro2::{Delimiter, Punct, Spacing, Span, TokenStream, TokenTree};

/// Text under construction and the source span of every piece of it.
#[derive(Default)]
pub struct Rendered {
    pub text: String,
    /// `(start, end, span)` of each token written, in order.
    pieces: Vec<(usize, usize, Span)>,
}

fn is_word(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

impl Rendered {
    /// Append `s`, written by the token at `span`.
    pub fn push(&mut self, s: &str, span: Span) {
        // A space only where two words would otherwise merge (`= 4`, not `#ttg . blocked`).
        if let (Some(a), Some(b)) = (self.text.chars().last(), s.chars().next()) {
            if is_word(a) && is_word(b) {
                self.text.push(' ');
            }
        }
        let start = self.text.len();
        self.text.push_str(s);
        self.pieces.push((start, self.text.len(), span));
    }

    /// Append tokens. `rewrite` may replace a token tree by text of its own (returns true).
    pub fn push_tokens(
        &mut self,
        ts: TokenStream,
        rewrite: &mut dyn FnMut(&mut Rendered, &TokenTree, Option<&TokenTree>) -> bool,
    ) {
        let trees: Vec<TokenTree> = ts.into_iter().collect();
        for (i, tt) in trees.iter().enumerate() {
            if rewrite(self, tt, trees.get(i + 1)) {
                continue;
            }
            match tt {
                TokenTree::Group(g) => {
                    let (open, close) = match g.delimiter() {
                        Delimiter::Brace => ("{", "}"),
                        Delimiter::Bracket => ("[", "]"),
                        Delimiter::Parenthesis => ("(", ")"),
                        Delimiter::None => ("", ""),
                    };
                    self.push(open, g.span_open());
                    self.push_tokens(g.stream(), rewrite);
                    self.push(close, g.span_close());
                }
                TokenTree::Ident(x) => self.push(&x.to_string(), x.span()),
                TokenTree::Punct(p) => self.push(&p.as_char().to_string(), p.span()),
                TokenTree::Literal(l) => self.push(&l.to_string(), l.span()),
            }
        }
    }

    /// The source spans covering bytes `[offset, offset + len)`: the first and last token touched.
    /// An empty range (the end of the input) points at the last token.
    pub fn spans(&self, offset: usize, len: usize) -> Option<(Span, Span)> {
        let end = offset + len.max(1);
        let hit: Vec<&(usize, usize, Span)> = self
            .pieces
            .iter()
            .filter(|(s, e, _)| *s < end && offset < *e)
            .collect();
        match (hit.first(), hit.last()) {
            (Some(a), Some(b)) => Some((a.2, b.2)),
            _ => self.pieces.last().map(|p| (p.2, p.2)),
        }
    }
}

/// A compile error covering source spans `first..=last`.
/// A group's arguments, split at its top-level commas (empty ones dropped):
/// `(a = 1, b = [2, 3])` -> `[a = 1]`, `[b = [2, 3]]`.
pub fn top_level_args(g: &proc_macro2::Group) -> Vec<Vec<TokenTree>> {
    let mut args: Vec<Vec<TokenTree>> = vec![Vec::new()];
    for tt in g.stream() {
        match &tt {
            TokenTree::Punct(p) if p.as_char() == ',' => args.push(Vec::new()),
            _ => {
                if let Some(last) = args.last_mut() {
                    last.push(tt)
                }
            }
        }
    }
    args.retain(|a| !a.is_empty());
    args
}

pub fn error_between(first: Span, last: Span, msg: impl std::fmt::Display) -> syn::Error {
    let mut a = Punct::new('#', Spacing::Alone);
    a.set_span(first);
    let mut b = Punct::new('#', Spacing::Alone);
    b.set_span(last);
    let ts: TokenStream = [TokenTree::Punct(a), TokenTree::Punct(b)]
        .into_iter()
        .collect();
    syn::Error::new_spanned(ts, msg)
}
