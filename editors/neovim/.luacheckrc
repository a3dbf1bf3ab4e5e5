-- luacheck configuration for the dsh Neovim plugin (LuaJIT, Neovim globals).
std = 'luajit'
globals = { 'vim' }
max_line_length = 120
codes = true
ignore = {
  '212/_.*', -- unused arguments named with a leading underscore
}
files['tests/*.lua'] = { max_line_length = false }
