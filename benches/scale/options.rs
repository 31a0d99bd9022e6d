//! The command line: flags, the `--quick` defaults and their checks.

use crate::families::FAMILIES;
use crate::MODELS;
use clap::{ArgAction, Parser};
use std::path::PathBuf;
use std::time::Duration;

const QUICK_MODELS: [&str; 4] = ["CM", "SSO", "Lazy", "Symb"];

pub struct Opts {
    pub sizes: Vec<u32>,
    pub families: Vec<String>,
    pub models: Vec<String>,
    pub budget: Duration,
    pub max_states: u64,
    pub paper_runs: usize,
    pub z3_outcomes: usize,
    pub mem_cap_mib: u64,
    pub engines: Vec<String>,
    pub skip: bool,
    pub paper: bool,
    pub emit: Option<PathBuf>,
    pub quick: bool,
    /// Lane counts of the CTS-shaped batches (empty: none).
    pub cts_sizes: Vec<u32>,
    /// Programs per CTS batch up to 8 lanes, and from 16 lanes on.
    pub cts_programs: u64,
    pub cts_programs_large: u64,
    /// A second `tangle` executable (an older build) run on the same CTS batches and Z3 cells,
    /// for before/after ratios.
    pub baseline: Option<PathBuf>,
}

/// The command line (`cargo bench --bench scale -- FLAGS`), before the `--quick` defaults and
/// the checks of [`parse_opts`]. Lists are comma-separated, empty items are ignored
/// (`--cts-sizes ''` runs no CTS batch); a flag given twice: the last one counts.
#[derive(Parser, Debug)]
#[command(
    name = "scale",
    about = "Scale benchmark: the explorer against Z3 on generated families of 2 to 32 lanes, \
             CTS-shaped batches and the paper suite: a Markdown table on stdout",
    args_override_self = true
)]
struct Cli {
    /// Smoke run: sizes 2,4,8, models CM,SSO,Lazy,Symb, --max-states 200000, a 20 s budget,
    /// CTS sizes 4,8 with at most 10 programs, at most 2 paper runs (--sizes, --models,
    /// --budget and --max-states given explicitly still count)
    #[arg(long)]
    quick: bool,
    /// Run larger N of a family and model even after the explorer gave up (limit, timeout,
    /// memout) at a smaller N
    #[arg(long)]
    no_skip: bool,
    /// Do not time the paper suite (`tangle check litmus/paper`)
    #[arg(long)]
    no_paper: bool,
    /// Lane counts of the families, powers of two in 2..=64 [default: 2,4,8,16,32; with
    /// --quick: 2,4,8]
    #[arg(long, value_name = "N,..", value_delimiter = ',', action = ArgAction::Set,
          value_parser = item::<u32>)]
    sizes: Option<Vec<Option<u32>>>,
    /// Families of generated tests: sso_ww, ks, peel, racy, racy_sg
    #[arg(long, value_name = "FAMILY,..", value_delimiter = ',', action = ArgAction::Set,
          default_value = "sso_ww,ks,peel,racy,racy_sg")]
    families: Vec<String>,
    /// Models: CM, SM, SCF, SSO, Spec, Lazy, Symb [default: all seven; with --quick:
    /// CM,SSO,Lazy,Symb]
    #[arg(long, value_name = "MODEL,..", value_delimiter = ',', action = ArgAction::Set)]
    models: Option<Vec<String>>,
    /// Engines of the family cells: explore, smt (the CTS batches always run smt)
    #[arg(long, value_name = "ENGINE,..", value_delimiter = ',', action = ArgAction::Set,
          default_value = "explore,smt")]
    engines: Vec<String>,
    /// Time budget per run in seconds; a run past it is killed (`timeout`) [default: 60;
    /// with --quick: 20]
    #[arg(long, value_name = "SECS")]
    budget: Option<u64>,
    /// The explorer's state budget, its `--max-states` (`limit` when reached) [default:
    /// 2000000; with --quick: 200000]
    #[arg(long, value_name = "N")]
    max_states: Option<u64>,
    /// Runs of the paper suite (min, median and max are reported; at most 2 with --quick)
    #[arg(long, value_name = "K", default_value_t = 5)]
    paper_runs: usize,
    /// `--max-outcomes` of the Z3 runs (256 is the CLI's default enumeration)
    #[arg(long, value_name = "K", default_value_t = 1)]
    z3_outcomes: usize,
    /// Kill a run whose resident memory exceeds this many MiB (`memout`)
    #[arg(long, value_name = "MIB", default_value_t = 8192)]
    mem_cap: u64,
    /// Only write the .litmus files of --families x --sizes into DIR; run nothing
    #[arg(long, value_name = "DIR")]
    emit: Option<PathBuf>,
    /// Lane counts of the CTS-shaped batches (`tangle::gen::cts`); empty: none [with --quick:
    /// 4,8]
    #[arg(long, value_name = "N,..", value_delimiter = ',', action = ArgAction::Set,
          default_value = "4,8,16,32,64", value_parser = item::<u32>)]
    cts_sizes: Vec<Option<u32>>,
    /// Programs per CTS batch of up to 8 lanes (at most 10 with --quick)
    #[arg(long, value_name = "K", default_value_t = 50)]
    cts_programs: u64,
    /// Programs per CTS batch of 16 lanes and more
    #[arg(long, value_name = "K", default_value_t = 5)]
    cts_programs_large: u64,
    /// An older `tangle` executable, run on the same Z3 cells and CTS batches (up to 8 lanes)
    /// for before/after ratios
    #[arg(long, value_name = "PATH")]
    baseline: Option<PathBuf>,
    /// Passed by `cargo bench` to a harness = false bench; ignored.
    #[arg(long, hide = true)]
    #[allow(dead_code)]
    bench: bool,
}

/// One item of a comma-separated list: `None` for an empty one (dropped, as `4,,8` or `''`).
fn item<T: std::str::FromStr>(s: &str) -> Result<Option<T>, T::Err> {
    if s.is_empty() {
        Ok(None)
    } else {
        s.parse().map(Some)
    }
}

/// The non-empty items of a list.
fn present(v: Vec<String>) -> Vec<String> {
    v.into_iter().filter(|s| !s.is_empty()).collect()
}

pub fn parse_opts() -> Result<Opts, String> {
    let cli = Cli::parse();
    let mut o = Opts {
        sizes: vec![2, 4, 8, 16, 32],
        families: present(cli.families),
        models: MODELS.iter().map(|s| s.to_string()).collect(),
        budget: Duration::from_secs(60),
        max_states: 2_000_000,
        paper_runs: cli.paper_runs,
        z3_outcomes: cli.z3_outcomes,
        mem_cap_mib: cli.mem_cap,
        engines: present(cli.engines),
        skip: !cli.no_skip,
        paper: !cli.no_paper,
        emit: cli.emit,
        quick: cli.quick,
        cts_sizes: cli.cts_sizes.into_iter().flatten().collect(),
        cts_programs: cli.cts_programs,
        cts_programs_large: cli.cts_programs_large,
        baseline: cli.baseline,
    };
    let sizes: Option<Vec<u32>> = cli.sizes.map(|s| s.into_iter().flatten().collect());
    let models = cli.models.map(present);
    let budget = cli.budget.map(Duration::from_secs);
    let max_states = cli.max_states;
    if o.quick {
        o.cts_sizes = vec![4, 8];
        o.cts_programs = o.cts_programs.min(10);
        o.sizes = vec![2, 4, 8];
        o.models = QUICK_MODELS.iter().map(|s| s.to_string()).collect();
        o.paper_runs = o.paper_runs.min(2);
        o.max_states = 200_000;
        o.budget = Duration::from_secs(20);
    }
    if let Some(s) = sizes {
        o.sizes = s;
    }
    if let Some(m) = models {
        o.models = m;
    }
    if let Some(b) = budget {
        o.budget = b;
    }
    if let Some(m) = max_states {
        o.max_states = m;
    }
    for n in &o.sizes {
        if !n.is_power_of_two() || *n < 2 || *n > 64 {
            return Err(format!("size {n}: lane counts are powers of two in 2..=64"));
        }
    }
    for f in &o.families {
        if !FAMILIES.contains(&f.as_str()) {
            return Err(format!(
                "unknown family `{f}` (expected one of {FAMILIES:?})"
            ));
        }
    }
    for e in &o.engines {
        if e != "explore" && e != "smt" {
            return Err(format!("unknown engine `{e}` (expected explore or smt)"));
        }
    }
    for m in &o.models {
        if !MODELS.contains(&m.as_str()) {
            return Err(format!("unknown model `{m}` (expected one of {MODELS:?})"));
        }
    }
    Ok(o)
}
