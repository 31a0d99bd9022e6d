//! The SPIR-V front end (issue 16): real SPIR-V read block for block, Dartagnan's annotated
//! tests with no flags, located errors, and no panic on any bytes.

use std::path::Path;
use tangle::model::Model;
use tangle::query::{self, Engine, Options};

fn holds(path: &Path, engine: Engine) -> Option<bool> {
    let test = tangle::load(path, &Default::default())
        .unwrap_or_else(|d| panic!("{}: {}", path.display(), d.render(false)));
    let opts = Options::default().with_engine(engine);
    query::analyse(&test, &Model::by_name("SSO").unwrap(), &opts)
        .unwrap()
        .condition_holds
}

/// Dartagnan's sample (`tests/data/dartagnan-spirv`, MIT): every file read with no launch
/// flags, both engines agree with the published result.
#[test]
fn dartagnan_spirv_sample_matches_the_published_results() {
    let dir = Path::new("tests/data/dartagnan-spirv");
    let table = std::fs::read_to_string(dir.join("expected.csv")).unwrap();
    let mut n = 0;
    for line in table.lines().skip(1) {
        let (file, want) = line.split_once(',').unwrap();
        let want = match want {
            "PASS" => true,
            "FAIL" => false,
            other => panic!("{file}: {other}"),
        };
        for engine in [Engine::Explore, Engine::Smt] {
            assert_eq!(
                holds(&dir.join(file), engine),
                Some(want),
                "{file} with {engine}"
            );
        }
        n += 1;
    }
    assert_eq!(n, 16);
}

fn write(name: &str, text: &str) -> std::path::PathBuf {
    let p = std::env::temp_dir().join(format!("tangle-spirv-{}-{name}", std::process::id()));
    std::fs::write(&p, text).unwrap();
    p
}

const HEADER: &str = "; @Output: forall (%out[0] == 1)
; @Config: 2, 1, 1
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main \"main\"
       %void = OpTypeVoid
       %func = OpTypeFunction %void
       %uint = OpTypeInt 32 0
     %uint_0 = OpConstant %uint 0
     %uint_1 = OpConstant %uint 1
     %uint_2 = OpConstant %uint 2
        %arr = OpTypeArray %uint %uint_2
        %ptr = OpTypePointer StorageBuffer %arr
       %uptr = OpTypePointer StorageBuffer %uint
        %out = OpVariable %ptr StorageBuffer
";

/// A store in the then-arm only: the verdict depends on the branch, and the arms are the
/// SPIR-V blocks (the witness names the store's line in the .spvasm).
#[test]
fn structured_branches_and_phis_are_read_as_written() {
    let src = format!(
        "{HEADER}       %main = OpFunction %void None %func
      %entry = OpLabel
          %p = OpAccessChain %uptr %out %uint_0
               OpSelectionMerge %merge None
               OpBranchConditional %true_ %then %merge
       %then = OpLabel
               OpBranch %merge
      %merge = OpLabel
          %v = OpPhi %uint %uint_1 %then %uint_2 %entry
               OpStore %p %v
               OpReturn
               OpFunctionEnd
"
    )
    .replace(
        "     %uint_2 = OpConstant %uint 2\n",
        "     %uint_2 = OpConstant %uint 2\n       %bool = OpTypeBool\n      %true_ = OpConstantTrue %bool\n",
    );
    let p = write("phi.spvasm", &src);
    for engine in [Engine::Explore, Engine::Smt] {
        assert_eq!(holds(&p, engine), Some(true), "{engine}");
    }
    let flipped = write(
        "phi2.spvasm",
        &src.replace("OpConstantTrue", "OpConstantFalse"),
    );
    for engine in [Engine::Explore, Engine::Smt] {
        assert_eq!(holds(&flipped, engine), Some(false), "{engine}");
    }
}

/// What the front end cannot lower is an error at the instruction's line, naming it.
#[test]
fn unsupported_instructions_are_located() {
    let src = format!(
        "{HEADER}      %float = OpTypeFloat 32
       %main = OpFunction %void None %func
      %entry = OpLabel
          %f = OpConvertUToF %float %uint_1
               OpReturn
               OpFunctionEnd
"
    );
    let p = write("float.spvasm", &src);
    let e = tangle::load(&p, &Default::default()).unwrap_err();
    let d = &e.0[0];
    assert_eq!(d.line, 19, "{}", e.render(false));
    assert!(d.message.contains("ConvertUToF"), "{}", d.message);
    // A bad annotation is located too.
    let bad = write(
        "cfg.spvasm",
        &src.replace("@Config: 2, 1, 1", "@Config: 2, x, 1"),
    );
    let e = tangle::load(&bad, &Default::default()).unwrap_err();
    assert_eq!(e.0[0].line, 2, "{}", e.render(false));
}

/// Arbitrary bytes and truncated modules never panic: they are errors.
#[test]
fn arbitrary_binaries_never_panic() {
    let good = std::process::Command::new("spirv-as")
        .arg(write("ok.spvasm", &format!("{HEADER}       %main = OpFunction %void None %func\n      %entry = OpLabel\n               OpReturn\n               OpFunctionEnd\n")))
        .arg("-o")
        .arg(std::env::temp_dir().join(format!("tangle-spirv-{}-ok.spv", std::process::id())))
        .status()
        .unwrap();
    assert!(good.success());
    let bytes = std::fs::read(
        std::env::temp_dir().join(format!("tangle-spirv-{}-ok.spv", std::process::id())),
    )
    .unwrap();
    let mut seed = 0x9e37_79b9_u32;
    for k in 0..300 {
        let mut b = bytes.clone();
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        match k % 3 {
            0 => b.truncate((seed as usize) % b.len()),
            1 => {
                let i = (seed as usize) % b.len();
                b[i] ^= (seed >> 8) as u8;
            }
            _ => {
                b = (0..(seed % 64) * 4)
                    .map(|i| i.wrapping_mul(seed) as u8)
                    .collect()
            }
        }
        let p = write("fuzz.spv", "");
        std::fs::write(&p, &b).unwrap();
        let launch = tangle::shader::Launch {
            subgroup_size: Some(2),
            ..Default::default()
        };
        let r = std::panic::catch_unwind(|| tangle::load(&p, &launch).map(|_| ()));
        assert!(r.is_ok(), "panic on mutation {k}");
    }
}
