//! `warden witness`: a witness of other logs, run as another user or on another host; the
//! witness itself (its state, its cosigning, its HTTP server) is `agentwarden-witness`.

use std::io::Write;
use std::path::PathBuf;

use agentwarden::tlog::{Cosigner, LogVerifier};
use agentwarden_witness::{Refused, Witnessing};
use clap::{Args, Subcommand};

use super::{EXIT_OK, Failure};

#[derive(Debug, Subcommand)]
pub(super) enum WitnessCommand {
    /// Make the witness's cosigning key (never over a file that exists) and print its public key.
    Keygen {
        /// The witness's name (e.g. `witness.example.com/w1`).
        #[arg(long, value_name = "NAME")]
        name: String,
        /// Where to write the key.
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
    },
    /// Answer a `tlog-witness` `add-checkpoint` request (from `warden audit witness-request`, on
    /// stdin or --request): print the cosignature line when the log extends the last checkpoint
    /// cosigned, refuse a rollback or a fork (exit 1).
    AddCheckpoint(AddCheckpointArgs),
    /// Answer C2SP `tlog-witness` `POST /add-checkpoint` over HTTP, with the state
    /// `add-checkpoint` keeps, until killed.
    Serve(ServeArgs),
}

#[derive(Debug, Args)]
pub(super) struct AddCheckpointArgs {
    /// The witness's cosigning key (from `warden witness keygen`).
    #[arg(long, value_name = "FILE")]
    key: PathBuf,
    /// The public key of the log witnessed (`NAME+ID+KEY`, from `warden audit keygen`).
    #[arg(long, value_name = "KEY")]
    log: String,
    /// The directory that keeps the last checkpoint cosigned per log.
    #[arg(long, value_name = "DIR")]
    state: PathBuf,
    /// The request [default: stdin].
    #[arg(long, value_name = "FILE")]
    request: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub(super) struct ServeArgs {
    /// Where to listen (`127.0.0.1:PORT`; port 0 picks one, printed on start).
    #[arg(long, value_name = "ADDR")]
    listen: String,
    /// The witness's cosigning key (from `warden witness keygen`).
    #[arg(long, value_name = "FILE")]
    key: PathBuf,
    /// The directory that keeps the last checkpoint cosigned per log.
    #[arg(long, value_name = "DIR")]
    state: PathBuf,
    /// The public key of a log witnessed (`NAME+ID+KEY`, from `warden audit keygen`), once per log.
    #[arg(long = "log", value_name = "KEY", required = true)]
    logs: Vec<String>,
}

pub(super) async fn run(command: WitnessCommand, out: &mut dyn Write) -> Result<u8, Failure> {
    match command {
        WitnessCommand::Keygen { name, out: path } => {
            let cosigner = Cosigner::generate(&name)?;
            agentwarden::tlog::write_new_key(&path, &cosigner.to_text())?;
            writeln!(out, "{}", cosigner.verifier())?;
        }
        WitnessCommand::AddCheckpoint(args) => {
            let cosigner = Cosigner::read(&args.key)?;
            let log = LogVerifier::parse(&args.log)?;
            let body = agentwarden_witness::read_request(args.request.as_deref())?;
            let line =
                agentwarden_witness::cosign(&cosigner, &log, &args.state, &body).map_err(|refused| {
                    match refused {
                        Refused::Tlog(e) => Failure::from(e),
                        Refused::State(why) => Failure::usage(why),
                    }
                })?;
            write!(out, "{line}")?;
        }
        WitnessCommand::Serve(args) => {
            let cosigner = Cosigner::read(&args.key)?;
            let logs = args.logs.iter().map(|l| LogVerifier::parse(l)).collect::<Result<Vec<_>, _>>()?;
            let listening =
                agentwarden_witness::listen(&args.listen, Witnessing::new(cosigner, logs, args.state))
                    .await
                    .map_err(|e| Failure::usage(format!("cannot listen on `{}`: {e}", args.listen)))?;
            let at = listening.local_addr().map_err(Failure::usage)?;
            writeln!(out, "witnessing on http://{at}/add-checkpoint")?;
            out.flush()?;
            listening.serve().await;
        }
    }
    Ok(EXIT_OK)
}
