//! `pgnfen convert`: rewrites FEN tag values in another dialect; every other
//! byte is copied unchanged.

use pgnfen::convert;

use crate::cli::{ConvertArgs, Global};
use crate::commands::{
    Error, Outcome, inputs, options, options_streaming, refuse_output_among_inputs,
    refuse_streams_among_inputs,
};

pub fn run(global: &Global, args: &ConvertArgs) -> Result<Outcome, Error> {
    let options = convert::Options {
        to: args.to,
        ep: args.ep,
        repair: args.repair,
        output: args.output.clone(),
        in_place: args.in_place,
        run: if args.in_place {
            options(global)
        } else {
            options_streaming(global, args.output.as_deref())
        },
        // Under --quiet too: they are the FENs it could not write.
        report_unchanged: true,
    };
    if !args.in_place {
        refuse_output_among_inputs(args.output.as_deref(), &args.inputs)?;
        refuse_streams_among_inputs(&args.inputs, &[args.output.as_deref()])?;
    }
    let summary = convert::run(&inputs(&args.inputs), &options)?;
    if !global.quiet {
        let mut msg = format!(
            "pgnfen: {}, {} written as {}, {} left unchanged",
            crate::format::count(summary.games, "game", "games"),
            crate::format::count(summary.converted, "FEN tag", "FEN tags"),
            args.to.as_str(),
            crate::format::thousands(summary.unchanged)
        );
        if args.in_place {
            let n = args.inputs.len();
            msg.push_str(&format!(
                "; {n} {} rewritten in place",
                if n == 1 { "file" } else { "files" }
            ));
        }
        say!("{msg}");
    }
    Ok(Outcome::Clean)
}
