//! `layout-builder KERNEL_CRATE_DIR [--arch sm_90] [--toolchain nightly] [--out FILE]
//! [--target-dir DIR]`: the builder from the command line; prints the PTX file's path.
//! (Arguments are read by hand: clap would be compiled into every user's build script.)

use std::process::ExitCode;

use layout_builder::PtxBuilder;

const USAGE: &str = "usage: layout-builder KERNEL_CRATE_DIR [--arch sm_90] [--toolchain nightly] [--out FILE] [--target-dir DIR]";

fn main() -> ExitCode {
    match parse(std::env::args().skip(1).collect()) {
        Ok(b) => match b.build() {
            Ok(p) => {
                println!("{}", p.display());
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("layout-builder: {}", e);
                ExitCode::FAILURE
            }
        },
        Err(e) => {
            eprintln!("layout-builder: {}\n{}", e, USAGE);
            ExitCode::from(2)
        }
    }
}

fn parse(args: Vec<String>) -> Result<PtxBuilder, String> {
    let mut it = args.into_iter();
    let mut path = None;
    let mut opts: Vec<(String, String)> = Vec::new();
    while let Some(a) = it.next() {
        if a == "-h" || a == "--help" {
            println!("{}", USAGE);
            std::process::exit(0);
        }
        if let Some(name) = a.strip_prefix("--") {
            let v = it
                .next()
                .ok_or_else(|| format!("--{} needs a value", name))?;
            opts.push((name.to_string(), v));
        } else if path.replace(a.clone()).is_some() {
            return Err(format!("one kernel crate at a time (got a second: {})", a));
        }
    }
    let mut b = PtxBuilder::new(path.ok_or("give the kernel crate's directory")?);
    for (k, v) in opts {
        b = match k.as_str() {
            "arch" => b.arch(&v),
            "toolchain" => b.toolchain(&v),
            "out" => b.out_file(&v),
            "target-dir" => b.target_dir(&v),
            _ => return Err(format!("unknown option --{}", k)),
        };
    }
    Ok(b)
}

#[cfg(test)]
mod tests {
    use super::parse;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn options_and_their_errors() {
        assert!(parse(args("k --arch sm_80 --out k.ptx")).is_ok());
        assert_eq!(parse(args("--arch")).unwrap_err(), "--arch needs a value");
        assert!(parse(args("k --bogus 1"))
            .unwrap_err()
            .contains("unknown option --bogus"));
        assert!(parse(args("a b")).unwrap_err().contains("one kernel crate"));
        assert!(parse(args("")).unwrap_err().contains("directory"));
    }
}
