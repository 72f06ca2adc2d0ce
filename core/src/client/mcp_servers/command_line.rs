//! A command line given as one string (`ferromcp list "node server.js"`), split into a program
//! and its arguments the way a POSIX shell splits words, without any expansion: the one place
//! that reads a server named on a command line rather than in an `mcpServers` entry.

/// Splits a command line into words as a POSIX shell would, without expansion: single quotes
/// keep everything, double quotes keep everything but `\"` and `\\`, a backslash outside
/// quotes escapes the next character.
pub fn split_command_line(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err("unterminated single quote in the command line".into()),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\')) => word.push(c),
                            Some(c) => {
                                word.push('\\');
                                word.push(c);
                            }
                            None => {
                                return Err("unterminated double quote in the command line".into())
                            }
                        },
                        Some(c) => word.push(c),
                        None => return Err("unterminated double quote in the command line".into()),
                    }
                }
            }
            '\\' => {
                in_word = true;
                match chars.next() {
                    Some(c) => word.push(c),
                    None => return Err("the command line ends with a lone backslash".into()),
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::split_command_line;

    #[test]
    fn quotes_and_escapes_split_like_a_shell() {
        assert_eq!(
            split_command_line(r#"node "my server.js" --name 'a b' c\ d "q\"x" ''"#).unwrap(),
            ["node", "my server.js", "--name", "a b", "c d", "q\"x", ""]
        );
        assert_eq!(split_command_line("  \t ").unwrap(), Vec::<String>::new());
    }

    #[test]
    fn an_open_quote_or_a_trailing_backslash_is_refused() {
        assert!(split_command_line("node 'open")
            .unwrap_err()
            .contains("single quote"));
        assert!(split_command_line("node \"open")
            .unwrap_err()
            .contains("double quote"));
        assert!(split_command_line("node x\\")
            .unwrap_err()
            .contains("lone backslash"));
    }
}
