//! The `calculator` tool's arithmetic. Its expression comes from a model, so it is
//! untrusted: it is read in one pass (shunting-yard into postfix, then a stack
//! machine), never recursively, so no nesting can overflow a stack and the time grows
//! with the length alone; an expression over [`MAX_EXPRESSION_CHARS`] is refused.
//!
//! It reads numbers (`12`, `0.5`, `.5`, `6.02e23`), `+ - * / %` and `^` (power,
//! right-associative, tighter than a leading minus: `-2^2` is -4), parentheses, the
//! constants `pi` and `e`, and the functions `sqrt abs round floor ceil exp ln log
//! sin cos tan` of one argument. Everything is a decimal number (`1/2` is 0.5).
//! evalexpr, used before, evaluated recursively: ~2,000 nested signs aborted the
//! process, and its time grew faster than the input.

/// The longest expression the calculator reads, in characters.
pub const MAX_EXPRESSION_CHARS: usize = 10_000;

/// The value of `expression`, written as a person would (`20`, `0.75`), or why it
/// has none, in words for the agent.
pub fn calculate(expression: &str) -> Result<String, String> {
    if expression.chars().count() > MAX_EXPRESSION_CHARS {
        return Err(format!("the expression is too long to calculate (over {MAX_EXPRESSION_CHARS} characters)"));
    }
    let quoted = quote(expression);
    let postfix = to_postfix(expression).map_err(|why| format!("cannot calculate {quoted}: {why}"))?;
    match evaluate(&postfix) {
        Some(x) if x.is_finite() => Ok(format_number(x)),
        Some(_) => Err(format!("{quoted} has no finite value")),
        None => Err(format!("cannot calculate {quoted}")),
    }
}

/// The expression in quotes for a message, cut to a readable length.
fn quote(expression: &str) -> String {
    const SHOWN: usize = 60;
    match expression.char_indices().nth(SHOWN) {
        Some((cut, _)) => format!("'{}…'", &expression[..cut]),
        None => format!("'{expression}'"),
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Op {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Pow,
    Neg,
    Function(Function),
    /// An opening parenthesis, on the operator stack only.
    Open,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Function {
    Sqrt,
    Abs,
    Round,
    Floor,
    Ceil,
    Exp,
    Ln,
    Log,
    Sin,
    Cos,
    Tan,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Item {
    Number(f64),
    Op(Op),
}

impl Op {
    /// Binding strength; prefix operators (`Neg`, functions) bind when their operand ends.
    fn precedence(self) -> u8 {
        match self {
            Op::Add | Op::Sub => 1,
            Op::Mul | Op::Div | Op::Rem => 2,
            Op::Neg => 3,
            Op::Pow => 4,
            Op::Function(_) => 5,
            Op::Open => 0,
        }
    }
}

/// The expression in postfix order, checked to be well formed.
fn to_postfix(expression: &str) -> Result<Vec<Item>, String> {
    let bytes = expression.as_bytes();
    let mut output = Vec::new();
    let mut ops: Vec<Op> = Vec::new();
    // True where a number (or what starts one: a sign, '(' or a function) must come.
    let mut expect_operand = true;
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if c.is_ascii_digit() || c == b'.' {
            if !expect_operand {
                return Err(format!("a number at character {} follows another value without an operator", i + 1));
            }
            let end = number_end(bytes, i);
            let number = expression[i..end].parse::<f64>().map_err(|_| format!("'{}' is not a number", &expression[i..end]))?;
            output.push(Item::Number(number));
            expect_operand = false;
            i = end;
        } else if c.is_ascii_alphabetic() {
            let end = i + bytes[i..].iter().take_while(|b| b.is_ascii_alphanumeric() || **b == b'_').count();
            let word = &expression[i..end];
            if !expect_operand {
                return Err(format!("'{word}' at character {} follows a value without an operator", i + 1));
            }
            match word.to_ascii_lowercase().as_str() {
                "pi" => {
                    output.push(Item::Number(std::f64::consts::PI));
                    expect_operand = false;
                }
                "e" => {
                    output.push(Item::Number(std::f64::consts::E));
                    expect_operand = false;
                }
                name => {
                    let function = function(name).ok_or_else(|| format!("'{word}' is not a function or constant it knows"))?;
                    if bytes[end..].iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'(') {
                        return Err(format!("the function '{word}' needs its argument in parentheses"));
                    }
                    ops.push(Op::Function(function));
                }
            }
            i = end;
        } else if c == b'(' {
            if !expect_operand {
                return Err(format!("'(' at character {} follows a value without an operator", i + 1));
            }
            ops.push(Op::Open);
            i += 1;
        } else if c == b')' {
            if expect_operand {
                return Err(format!("')' at character {} comes where a number was expected", i + 1));
            }
            loop {
                match ops.pop() {
                    Some(Op::Open) => break,
                    Some(op) => output.push(Item::Op(op)),
                    None => return Err(format!("the ')' at character {} closes nothing", i + 1)),
                }
            }
            if let Some(&Op::Function(f)) = ops.last() {
                ops.pop();
                output.push(Item::Op(Op::Function(f)));
            }
            i += 1;
        } else {
            let (op, width) = match (c, bytes.get(i + 1)) {
                (b'*', Some(b'*')) => (Op::Pow, 2),
                (b'+', _) => (Op::Add, 1),
                (b'-', _) => (Op::Sub, 1),
                (b'*', _) => (Op::Mul, 1),
                (b'/', _) => (Op::Div, 1),
                (b'%', _) => (Op::Rem, 1),
                (b'^', _) => (Op::Pow, 1),
                _ => {
                    let shown = expression[i..].chars().next().unwrap_or('?');
                    return Err(format!("'{shown}' at character {} is not arithmetic", i + 1));
                }
            };
            if expect_operand {
                match op {
                    Op::Sub => ops.push(Op::Neg),
                    Op::Add => {}
                    _ => return Err(format!("an operator at character {} comes where a number was expected", i + 1)),
                }
            } else {
                let right_associative = op == Op::Pow;
                while let Some(&top) = ops.last() {
                    let binds = top.precedence() > op.precedence() || (top.precedence() == op.precedence() && !right_associative);
                    if top == Op::Open || !binds {
                        break;
                    }
                    output.push(Item::Op(top));
                    ops.pop();
                }
                ops.push(op);
                expect_operand = true;
            }
            i += width;
        }
    }
    if expect_operand {
        return Err(if output.is_empty() && ops.is_empty() {
            "it is empty".to_owned()
        } else {
            "it ends where a number was expected".to_owned()
        });
    }
    while let Some(op) = ops.pop() {
        if op == Op::Open {
            return Err("a '(' is never closed".to_owned());
        }
        output.push(Item::Op(op));
    }
    Ok(output)
}

/// Where the number starting at `start` ends (digits, a fraction, an exponent).
fn number_end(bytes: &[u8], start: usize) -> usize {
    let digits = |from: usize| from + bytes[from..].iter().take_while(|b| b.is_ascii_digit()).count();
    let mut end = digits(start);
    if bytes.get(end) == Some(&b'.') {
        end = digits(end + 1);
    }
    if matches!(bytes.get(end), Some(b'e' | b'E')) {
        let mut exponent = end + 1;
        if matches!(bytes.get(exponent), Some(b'+' | b'-')) {
            exponent += 1;
        }
        if bytes.get(exponent).is_some_and(u8::is_ascii_digit) {
            end = digits(exponent);
        }
    }
    end
}

fn function(name: &str) -> Option<Function> {
    Some(match name {
        "sqrt" => Function::Sqrt,
        "abs" => Function::Abs,
        "round" => Function::Round,
        "floor" => Function::Floor,
        "ceil" => Function::Ceil,
        "exp" => Function::Exp,
        "ln" => Function::Ln,
        "log" | "log10" => Function::Log,
        "sin" => Function::Sin,
        "cos" => Function::Cos,
        "tan" => Function::Tan,
        _ => return None,
    })
}

/// The value of a well-formed postfix expression (None only if it is not one).
fn evaluate(postfix: &[Item]) -> Option<f64> {
    let mut stack: Vec<f64> = Vec::with_capacity(postfix.len().min(64));
    for item in postfix {
        let value = match *item {
            Item::Number(x) => x,
            Item::Op(Op::Neg) => -stack.pop()?,
            Item::Op(Op::Function(f)) => apply(f, stack.pop()?),
            Item::Op(op) => {
                let right = stack.pop()?;
                let left = stack.pop()?;
                match op {
                    Op::Add => left + right,
                    Op::Sub => left - right,
                    Op::Mul => left * right,
                    Op::Div => left / right,
                    Op::Rem => left % right,
                    Op::Pow => left.powf(right),
                    Op::Neg | Op::Function(_) | Op::Open => return None,
                }
            }
        };
        stack.push(value);
    }
    (stack.len() == 1).then(|| stack[0])
}

fn apply(function: Function, x: f64) -> f64 {
    match function {
        Function::Sqrt => x.sqrt(),
        Function::Abs => x.abs(),
        Function::Round => x.round(),
        Function::Floor => x.floor(),
        Function::Ceil => x.ceil(),
        Function::Exp => x.exp(),
        Function::Ln => x.ln(),
        Function::Log => x.log10(),
        Function::Sin => x.sin(),
        Function::Cos => x.cos(),
        Function::Tan => x.tan(),
    }
}

fn format_number(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        format!("{x}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arithmetic_as_a_person_writes_it() {
        let cases = [
            ("1/2 + 1/4", "0.75"),
            ("(2 + 3) * 4", "20"),
            ("2 + 3 * 4", "14"),
            ("10 - 4 - 3", "3"),
            ("2^3^2", "512"),
            ("2**10", "1024"),
            ("-2^2", "-4"),
            ("2^-1", "0.5"),
            ("--3", "3"),
            ("+4 - -1", "5"),
            ("7 % 4", "3"),
            (".5 * 6.02e2", "301"),
            ("sqrt(16) + abs(-2)", "6"),
            ("round(2.5) * floor(1.9)", "3"),
            ("2 * pi / pi", "2"),
            ("log(1000)", "3"),
            ("  ( ( 1 ) )  ", "1"),
        ];
        for (expression, want) in cases {
            assert_eq!(calculate(expression), Ok(want.to_owned()), "{expression}");
        }
    }

    #[test]
    fn what_is_not_arithmetic_is_said_in_words() {
        let cases = [
            ("2 +", "ends where a number was expected"),
            ("", "it is empty"),
            ("(1 + 2", "never closed"),
            ("1 + 2)", "closes nothing"),
            ("2 3", "follows another value"),
            ("2 (3)", "follows a value"),
            ("* 3", "where a number was expected"),
            ("foo(2)", "'foo' is not a function"),
            ("sqrt 4", "in parentheses"),
            ("1 & 2", "'&' at character 3 is not arithmetic"),
            (".", "is not a number"),
            ("1..2", "follows another value"),
        ];
        for (expression, want) in cases {
            let error = calculate(expression).unwrap_err();
            assert!(error.contains(want), "{expression}: {error}");
        }
        assert_eq!(calculate("1/0"), Err("'1/0' has no finite value".to_owned()));
    }

    #[test]
    fn deep_nesting_and_long_input_cannot_take_the_process_down() {
        // Each of these aborted the process through evalexpr's recursion.
        let signs = format!("{}1", "-".repeat(9_999));
        assert_eq!(calculate(&signs), Ok("-1".to_owned()));
        let parens = format!("{}1{}", "(".repeat(4_999), ")".repeat(4_999));
        assert_eq!(calculate(&parens), Ok("1".to_owned()));
        let functions = format!("{}4{}", "sqrt(".repeat(1_500), ")".repeat(1_500));
        assert!(calculate(&functions).is_ok());
        let unclosed = "(".repeat(MAX_EXPRESSION_CHARS);
        assert!(calculate(&unclosed).unwrap_err().contains("where a number was expected"));
        let long = "1+".repeat(MAX_EXPRESSION_CHARS);
        assert!(calculate(&long).unwrap_err().contains("too long"));
    }

    #[test]
    fn messages_quote_a_long_expression_shortly() {
        let error = calculate(&format!("{}+", "1".repeat(500))).unwrap_err();
        assert!(error.chars().count() < 120, "{error}");
    }
}
