//! Serving the 2025-11-25 reference receiver and reference client (`taskcheck reference`,
//! `reference-client`) with the faults, legal variants and hostile modes asked for, over
//! stdio or Streamable HTTP.

use super::{client, faults, http, requestor, variants};
use crate::design::{
    ClientServer, NotServed, ReferenceClient, ReferenceReceiver, ReferenceRequestor, ServeOptions,
};
use crate::reference::faults::{list_of, FaultEntry};
use crate::reference::{self, http_hostile};
use futures::future::BoxFuture;
use futures::FutureExt;

/// The 2025-11-25 reference receiver.
pub struct Reference;

impl ReferenceReceiver for Reference {
    fn fault_list(&self) -> String {
        list_of(faults::FAULTS.iter())
    }

    fn variant_list(&self) -> String {
        reference::variants::list_of(variants::VARIANTS)
    }

    fn hostile_list(&self) -> Option<String> {
        Some(format!(
            "{}{}",
            reference::hostile::list(),
            http_hostile::list()
        ))
    }

    fn serve(&self, options: ServeOptions) -> BoxFuture<'static, Result<(), NotServed>> {
        async move {
            let ServeOptions {
                faults,
                variants: named,
                max_tasks,
                http: addr,
                json_response,
                hostile,
                record,
            } = options;
            let record = reference::record::open(record.as_deref()).map_err(NotServed::Failed)?;
            let unknown = |name: &str| {
                let over = if addr.is_some() { "HTTP" } else { "stdio" };
                NotServed::Usage(format!(
                    "unknown {over} hostile mode {name:?} (see `taskcheck reference --list-hostile`)"
                ))
            };
            let mut faults = faults::from_names(&faults).map_err(NotServed::Usage)?;
            faults.max_live_tasks = max_tasks;
            faults.variants = reference::variants::named(&named, variants::VARIANTS, "reference")
                .map_err(NotServed::Usage)?;
            let served = match addr {
                Some(addr) => {
                    let hostile = match hostile {
                        Some(name) => Some(http_hostile::by_name(&name).ok_or_else(|| unknown(&name))?),
                        None => None,
                    };
                    let options = http::HttpOptions {
                        json_only: json_response,
                        hostile,
                    };
                    http::serve_http(faults, addr, options, record).await
                }
                None => {
                    let hostile = match hostile {
                        Some(name) => Some(reference::hostile::by_name(&name).ok_or_else(|| unknown(&name))?),
                        None => None,
                    };
                    super::serve_stdio(faults, hostile, record).await
                }
            };
            served.map_err(|e| NotServed::Failed(e.to_string()))
        }
        .boxed()
    }

    fn client(&self) -> Option<&'static dyn ReferenceClient> {
        Some(&Client)
    }

    fn requestor(&self) -> Option<&'static dyn ReferenceRequestor> {
        Some(&Requestor)
    }
}

/// The 2025-11-25 reference requestor.
struct Requestor;

impl ReferenceRequestor for Requestor {
    fn faults(&self) -> Vec<FaultEntry> {
        requestor::FAULTS.iter().map(|f| f.entry()).collect()
    }

    fn variant_list(&self) -> String {
        crate::reference::variants::list_of(requestor::VARIANTS)
    }

    fn run(
        &self,
        command: String,
        ask: crate::scenario::Ask,
        names: Vec<String>,
        variants: Vec<String>,
    ) -> BoxFuture<'static, Result<(), NotServed>> {
        async move {
            let list: Vec<_> = requestor::FAULTS.iter().collect();
            let command_name = "reference-requestor";
            let mut faults = crate::reference::faults::Faults::named(&names, &list, command_name)
                .map_err(NotServed::Usage)?;
            faults.variants =
                crate::reference::variants::named(&variants, requestor::VARIANTS, command_name)
                    .map_err(NotServed::Usage)?;
            let session = crate::design::requestor_session(command).await?;
            let server = crate::designs::tasks_2025::handshake::initialize(
                &session,
                serde_json::json!({"elicitation": {}}),
            )
            .await
            .map_err(NotServed::Failed)?;
            let done = requestor::run(&session, &server.capabilities, &ask, &faults).await;
            session.close(crate::design::SERVER_EXIT).await;
            done.map_err(NotServed::Failed)
        }
        .boxed()
    }
}

/// The 2025-11-25 reference client.
struct Client;

impl ReferenceClient for Client {
    fn faults(&self) -> Vec<FaultEntry> {
        faults::client_entries()
    }

    fn run(
        &self,
        server: ClientServer,
        names: Vec<String>,
    ) -> BoxFuture<'static, Result<(), NotServed>> {
        async move {
            let faults = faults::from_client_names(&names).map_err(NotServed::Usage)?;
            let ran = match server {
                ClientServer::Http(http) => client::run_client(&*http, faults).await,
                ClientServer::Stdio(stdio) => client::run_client(&stdio, faults).await,
            };
            ran.map_err(NotServed::Failed)
        }
        .boxed()
    }
}
