# lit configuration for ccopt: one test file per pass, emitter and dialect.
import os
import lit.formats

config.name = "ccopt"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.ccopt_obj_root, "test", "lit")
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py.in", "Inputs"]

path = os.pathsep.join([config.ccopt_tools_dir, config.llvm_tools_dir,
                        config.environment.get("PATH", os.environ["PATH"])])
config.environment["PATH"] = path
config.substitutions.append(("%examples", os.path.join(config.ccopt_source_root, "examples")))
config.substitutions.append(("%runtime_include", os.path.join(config.ccopt_source_root, "runtime", "include")))
