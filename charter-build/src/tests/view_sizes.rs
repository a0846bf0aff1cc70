//! The view sizes the checker counts before writing anything (`crate::size`) against
//! the schemas the emitter writes, on every shipped pack: the count never exceeds the text
//! (so a view it refuses is certainly over the limit), and no shipped tool is near the limit.

use std::path::Path;

use charter_terms::tokens::MAX_VIEW_TOKENS;

use crate::lower::lower;
use crate::schema::tool_view_schema;
use crate::size::view_tokens;

#[test]
fn counted_sizes_are_lower_bounds_of_the_written_schemas_of_every_shipped_pack() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../packs");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    assert!(files.len() >= 10, "{files:?}");
    let (mut views, mut counted_sum, mut written_sum, mut largest) = (0, 0u64, 0u64, 0u32);
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let model = crate::load_str(&file.display().to_string(), &text)
            .unwrap_or_else(|d| panic!("{d:#?}"));
        let lowered = lower(&model);
        for (i, tool) in model.tools.iter().enumerate() {
            for view in &tool.views {
                let counted = view_tokens(&model, i, view);
                let written = tool_view_schema(&lowered, i, view).tokens;
                assert!(
                    counted <= written,
                    "{}: {:?}: counted {counted} > written {written}",
                    tool.name,
                    view.key
                );
                views += 1;
                counted_sum += u64::from(counted);
                written_sum += u64::from(written);
                largest = largest.max(written);
            }
        }
    }
    // The count is close, not a token estimate of its own.
    assert!(
        counted_sum * 10 >= written_sum * 8,
        "{views} views: counted {counted_sum}, written {written_sum}"
    );
    assert!(
        largest * 4 < MAX_VIEW_TOKENS,
        "largest shipped view: {largest}"
    );
    println!(
        "{views} views: counted {counted_sum} tokens, written {written_sum}; largest {largest}"
    );
}
