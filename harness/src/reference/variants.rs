//! Tables of legal variants of reference receivers (`reference --variant NAME`), generic over
//! each design's own variant enum: behaviours the spec allows, each of which must pass the
//! whole suite with no failure and no warning, so no check accuses a correct receiver.

/// A variant's name, and what it does. `V` is the design's variant enum.
pub struct VariantInfo<V> {
    pub variant: V,
    pub name: &'static str,
    pub description: &'static str,
}

/// The variants of a list with these names; the first unknown name is the error, naming the
/// command that lists them.
pub fn named<V: Copy + Eq + std::hash::Hash>(
    names: &[String],
    list: &[VariantInfo<V>],
    command: &str,
) -> Result<std::collections::HashSet<V>, String> {
    names
        .iter()
        .map(|name| {
            list.iter()
                .find(|v| v.name == name)
                .map(|v| v.variant)
                .ok_or_else(|| {
                    format!("unknown variant {name:?} (see `taskcheck {command} --list-variants`)")
                })
        })
        .collect()
}

/// The `--list-variants` lines of a list of variants.
pub fn list_of<V>(variants: &[VariantInfo<V>]) -> String {
    variants
        .iter()
        .map(|v| format!("{:<28} {}\n", v.name, v.description))
        .collect()
}
