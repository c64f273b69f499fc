import { render } from 'preact';
import { App } from './app';
import './styles.css';
import { stackTables } from './stack-tables';

render(<App />, document.getElementById('root')!);
// The post panel is drawn outside #root (a portal): watch the whole body.
stackTables(document.body);
