//! `taskcheck reference` for 2025-11-25: the reference receiver with its faults, legal
//! variants and hostile modes, over stdio or Streamable HTTP.

use crate::design::{NotServed, ReferenceReceiver, ServeOptions};
use crate::reference::{self, faults::Faults, http, http_hostile, variants};
use futures::future::BoxFuture;
use futures::FutureExt;

/// The 2025-11-25 reference receiver.
pub struct Reference;

impl ReferenceReceiver for Reference {
    fn fault_list(&self) -> String {
        crate::reference::faults::list_of(reference::faults::FAULTS.iter())
    }

    fn variant_list(&self) -> String {
        variants::list_of(variants::VARIANTS)
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
            } = options;
            let unknown = |name: &str| {
                let over = if addr.is_some() { "HTTP" } else { "stdio" };
                NotServed::Usage(format!(
                    "unknown {over} hostile mode {name:?} (see `taskcheck reference --list-hostile`)"
                ))
            };
            let mut faults = Faults::from_names(&faults).map_err(NotServed::Usage)?;
            faults.max_live_tasks = max_tasks;
            faults.variants = variants::named(&named, variants::VARIANTS, "reference")
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
                    http::serve_http(faults, addr, options).await
                }
                None => {
                    let hostile = match hostile {
                        Some(name) => Some(reference::hostile::by_name(&name).ok_or_else(|| unknown(&name))?),
                        None => None,
                    };
                    reference::serve_stdio(faults, hostile).await
                }
            };
            served.map_err(|e| NotServed::Failed(e.to_string()))
        }
        .boxed()
    }
}
